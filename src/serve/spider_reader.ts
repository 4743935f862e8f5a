/**
 * Reads spider files for `netweir serve` in as few processes as it can: all the files asked for, one after the
 * other, in one `netweir _serve_inspect` child (src/cli/serve_inspect.ts). Spider code never runs in the service's
 * own process, and the child never sees the service's login.
 *
 * Each file has `importTimeoutMs` from the child saying it starts on it to the child saying it is done. A file that
 * takes longer (a top-level await that never settles, a loop that never ends) is reported as hanging; one that ends
 * the process (`exit()` at the top of a module, a crash) is reported with what the process said last. Either way the
 * child is gone or killed, and a new one carries on with the files after that one, so a bad file costs the project
 * at most one bound and one process start, and never the files around it.
 */
import { spawn } from "node:child_process";
import type { InspectResult } from "../load/inspect_result.ts";
import { runtime } from "../runtime/mod.ts";
import { spiderEnvironment } from "./child_env.ts";

/** How to run `netweir` (runtime.selfCommand of cli.ts). */
export interface ReaderCommand {
  command: string;
  args: string[];
}

export interface ReadOptions {
  /** How to start `netweir`. */
  cli: ReaderCommand;
  /** The directory the child runs in (the project's: spider files may import each other by relative path). */
  cwd: string;
  /** How long one file may take to import and describe. */
  importTimeoutMs: number;
}

/** What one child process got through: results by index, and the index it was on when it stopped, if any. */
interface RunOutcome {
  results: Map<number, InspectResult>;
  /** The file it had started on and not finished. */
  current: number | undefined;
  /** Why it stopped early: a hang, or the process's end. */
  reason: string;
}

/** The last line of a text that is not blank. */
function lastLine(text: string): string | undefined {
  return text.split("\n").map((line) => line.trim()).filter((line) => line !== "").at(-1);
}

/** Runs one child over `files` until it is done with all of them, hangs on one, or ends. */
function runOnce(files: string[], options: ReadOptions): Promise<RunOutcome> {
  const token = `netweir-inspect-${crypto.randomUUID()}`;
  const child = spawn(options.cli.command, [...options.cli.args, "_serve_inspect", token, ...files], {
    cwd: options.cwd,
    env: spiderEnvironment(),
    stdio: ["ignore", "ignore", "pipe"],
  });
  const results = new Map<number, InspectResult>();
  let current: number | undefined;
  let ownOutput = ""; // the spider files' own lines since the current file started
  let pending = "";
  let watchdog: ReturnType<typeof setTimeout> | undefined;
  let hung: string | undefined;
  return new Promise((resolve) => {
    const arm = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => {
        hung = `did not load within ${options.importTimeoutMs / 1000} s`;
        if (child.pid !== undefined) runtime.signalProcess(child.pid, "SIGKILL");
      }, options.importTimeoutMs);
    };
    const onLine = (line: string) => {
      if (!line.startsWith(token + " ")) {
        ownOutput += line + "\n";
        return;
      }
      const said = line.slice(token.length + 1);
      if (said.startsWith("start ")) {
        current = Number(said.slice("start ".length));
        ownOutput = "";
        arm();
      } else if (said.startsWith("done ") && current !== undefined) {
        clearTimeout(watchdog);
        try {
          results.set(current, { ...JSON.parse(said.slice("done ".length)), file: files[current] });
        } catch {
          results.set(current, { file: files[current], error: "its description could not be read" });
        }
        current = undefined;
      }
    };
    // The first file's bound also covers the child's own start (a process that never gets going is a hang too).
    arm();
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      pending += chunk;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) onLine(line);
    });
    child.on("error", (error) => {
      clearTimeout(watchdog);
      resolve({ results, current: 0, reason: `cannot start ${options.cli.command}: ${error.message}` });
    });
    child.on("close", (code, signal) => {
      clearTimeout(watchdog);
      if (pending !== "") onLine(pending);
      const said = lastLine(ownOutput);
      const reason = hung ?? said ??
        (signal ? `loading it ended the process (${signal})` : `loading it ended the process with exit code ${code}`);
      resolve({ results, current, reason });
    });
  });
}

/**
 * Reads `files` (absolute paths) and returns one result per file, in order. Never throws: every way a file can fail
 * is its result's `error`.
 */
export async function readSpiderFiles(files: readonly string[], options: ReadOptions): Promise<InspectResult[]> {
  const results: (InspectResult | undefined)[] = new Array(files.length).fill(undefined);
  let left = files.map((_, index) => index);
  while (left.length > 0) {
    const batch = left;
    const outcome = await runOnce(batch.map((index) => files[index]), options);
    for (const [position, result] of outcome.results) results[batch[position]] = result;
    // The file the child stopped on is the one to blame; if it stopped before starting any, the first one left is
    // (so every round settles at least one file and this loop ends).
    const stuck = outcome.current ?? batch.findIndex((index) => results[index] === undefined);
    if (stuck >= 0 && results[batch[stuck]] === undefined) {
      results[batch[stuck]] = { file: files[batch[stuck]], error: outcome.reason };
    }
    left = batch.filter((index) => results[index] === undefined);
  }
  return results as InspectResult[];
}
