/** Runs the real `netweir` CLI (cli.ts) in a new process, as a user would, and collects what it printed. */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runtime } from "../../src/runtime/mod.ts";

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

/** Runs `netweir ARGS` to the end. */
export function runCli(args: string[], options: RunOptions = {}): Promise<CliResult> {
  const self = runtime.selfCommand(CLI_PATH);
  // The environment is extended through env(1) rather than replaced: the child still needs HOME, PATH and Deno's
  // cache, and reading the whole environment here would mean reaching into the process object.
  const assignments = Object.entries(options.env ?? {}).map(([name, value]) => `${name}=${value}`);
  const [command, commandArgs] = assignments.length > 0
    ? ["env", [...assignments, self.command, ...self.args, ...args]]
    : [self.command, [...self.args, ...args]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, commandArgs, { cwd: options.cwd, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => stdout += chunk);
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => stderr += chunk);
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr }));
    child.stdin.end(options.stdin ?? "");
  });
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
