/**
 * Signals to other processes, for tests that pause, stop or kill servers and crawls.
 *
 * Why not `child.kill()`: Deno's node:child_process sends only the first signal of a ChildProcess and ignores every
 * later one (it marks the child `killed`), so SIGSTOP then SIGCONT, or SIGINT then a second SIGINT, cannot be sent
 * that way. The `kill` command has no such memory, and it keeps `process.*` out of the helpers.
 */
import { spawn } from "node:child_process";

/** A signal a test sends. */
export type TestSignal = "SIGTERM" | "SIGKILL" | "SIGINT" | "SIGQUIT" | "SIGHUP" | "SIGSTOP" | "SIGCONT";

function runKill(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn("kill", args, { stdio: "ignore" });
    child.once("error", reject);
    child.once("close", (code) => resolve(code ?? 1));
  });
}

/** Sends `signal` to process `pid`; rejects when there is no such process. */
export async function sendSignal(pid: number, signal: TestSignal): Promise<void> {
  if (!Number.isInteger(pid) || pid <= 0) throw new RangeError(`not a process id: ${pid}`);
  const code = await runKill(["-s", signal.slice(3), String(pid)]);
  if (code !== 0) throw new Error(`could not send ${signal} to process ${pid}`);
}

/** Whether process `pid` exists (a child that exited and was waited for does not). */
export async function processExists(pid: number): Promise<boolean> {
  if (!Number.isInteger(pid) || pid <= 0) throw new RangeError(`not a process id: ${pid}`);
  return await runKill(["-0", String(pid)]) === 0;
}
