/** Runs the real `netweir` CLI (cli.ts) in a new process, as a user would, and collects what it printed. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli as runNetweir } from "../helpers/cli.ts";

/** The repository's cli.ts. */
export const CLI_PATH = fileURLToPath(new URL("../../cli.ts", import.meta.url));

/** How one run of the CLI ended. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Where and with what the CLI runs. `env` is added to this process's environment. */
export interface RunOptions {
  cwd?: string;
  env?: Record<string, string>;
  stdin?: string;
}

/** Runs `netweir ARGS` to the end (tests/helpers/cli.ts does the work; a death by signal reads as 128). */
export async function runCli(args: string[], options: RunOptions = {}): Promise<CliResult> {
  const result = await runNetweir(args, options);
  return { code: result.code ?? 128, stdout: result.stdout, stderr: result.stderr };
}

/** Runs `body` with a new empty directory and removes the directory afterwards, whatever happens. */
export async function withTempDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "netweir-cli-"));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The absolute path of a file under tests/cli/fixtures. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
}

/** The JSON objects of a JSON Lines text (blank lines skipped). */
export function jsonLines(text: string): Array<Record<string, unknown>> {
  return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
}
