/** Shared pieces of the job store, runner and dir lock tests: a temp --dir, jobs, a fake crawl, waiting on files. */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runtime } from "../../src/runtime/mod.ts";
import type { Logger } from "../../src/spider/types.ts";
import type { CliCommand } from "../../src/serve/job_runner.ts";
import type { NewJob } from "../../src/serve/types.ts";
import { processExists } from "../helpers/signal.ts";
import { waitUntil } from "../helpers/wait.ts";

/** tests/serve/fixtures/fake_crawl.ts, run the way the runner runs `netweir`. */
export const FAKE_CRAWL: CliCommand = runtime.selfCommand(
  fileURLToPath(new URL("./fixtures/fake_crawl.ts", import.meta.url)),
);

/** Runs `body` with a new empty directory, removed afterwards whatever happens. */
export async function withTempDir(body: (dir: string) => void | Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "netweir-jobs-"));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A job for the fake crawl: `args` are its `-a` arguments (see fake_crawl.ts). */
export function fakeJob(id: string, cwd: string, args: string[] = [], priority = 0): NewJob {
  return { id, project: "shop", spider: "fake", file: join(cwd, "fake.ts"), cwd, priority, settings: [], args };
}

/** A logger that keeps its lines, for asserting on what the service said. */
export function memoryLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const write = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
  return { lines, debug: write("DEBUG"), info: write("INFO"), warning: write("WARNING"), error: write("ERROR") };
}

export { waitUntil };

/** Waits until `file` exists and matches `pattern`; resolves with the match. */
export function waitForText(file: string, pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray> {
  return waitUntil(`${pattern} in ${file}`, async () => {
    const text = await readFile(file, "utf8").catch(() => "");
    return text.match(pattern) ?? undefined;
  }, timeoutMs);
}

/**
 * Whether a process is gone. A killed process whose parent died stays a zombie until init reaps it, and `kill -0`
 * still finds a zombie, so on Linux its state in /proc counts: Z is gone.
 */
export async function processGone(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
  if (stat !== null) return /^\d+ \(.*\) Z/s.test(stat);
  return !(await processExists(pid));
}

/** Whether a file exists. */
export async function exists(file: string): Promise<boolean> {
  return await readFile(file).then(() => true, () => false);
}
