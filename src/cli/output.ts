/** Where a command writes: standard output in order (awaited before the process exits) and standard error. */
import { runtime } from "../runtime/mod.ts";

/** A command's two output streams. `out` queues text; `flush` resolves once all of it has been written. */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
  flush(): Promise<void>;
}

/** Output to this process's standard output and standard error, through the runtime. */
export function processOutput(): CliOutput {
  // Writes to standard output are asynchronous; chaining them keeps their order, and `flush` lets main() wait for
  // the last one before the process exits. A closed pipe (`netweir list | head -1`) is not worth failing over.
  let pending: Promise<void> = Promise.resolve();
  return {
    out(text) {
      pending = pending.then(() => runtime.writeStdout(text)).catch(() => {});
    },
    err: (text) => runtime.writeStderr(text),
    flush: () => pending,
  };
}
