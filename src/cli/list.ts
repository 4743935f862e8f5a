/**
 * `netweir list PATH [--json]` (C24): the spiders in a file, or in a directory's top-level .ts/.js files. Each file
 * is imported in a process of its own (the hidden `_inspect` command), so one broken file is reported by name while
 * the others are still listed.
 */
import { spawn } from "node:child_process";
import { readdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { UsageError } from "../errors.ts";
import { maskSecrets } from "../log.ts";
import { runtime } from "../runtime/mod.ts";
import type { CommandContext } from "./context.ts";
import type { InspectResult } from "./inspect.ts";
import { selfCli } from "../runtime/self_cli.ts";

/** One line of `list --json`: a spider, or a file that could not be loaded. */
export type ListEntry = { name: string; class: string; file: string } | { file: string; error: string };

/** How long one file may take to load before it is reported as hanging. */
const INSPECT_TIMEOUT_MS = 60_000;
/** Files loaded at once; each is a process, and starting one is the slow part. */
const PARALLEL_INSPECTS = 4;

const HELP_AFTER = `
PATH is a .ts, .js, .mts or .mjs file, or a directory whose top-level ones are read (not its subdirectories;
*_test.ts, *.test.ts and .d.ts files are skipped). Each file is loaded in a separate process.

Output: one spider a line, "NAME<TAB>FILE". A file that fails to load is reported on standard error as
"netweir: FILE: MESSAGE" and the other files are still listed.

With --json: one JSON array in file order, holding {"name", "class", "file"} for each spider and
{"file", "error"} for each file that failed to load.

Exit status: 0 when every file loaded, 1 when any failed, 2 when PATH does not exist.`;

/** Whether a directory entry is a spider file by its name. */
function isSpiderFileName(name: string): boolean {
  if (!/\.(ts|js|mts|mjs)$/.test(name) || /\.d\.m?ts$/.test(name)) return false;
  return !/[_.]test\.(ts|js)$/.test(name);
}

/** The files `list PATH` loads, as the user would write them (PATH joined with each name), in name order. */
export async function spiderFiles(path: string): Promise<string[]> {
  const absolute = resolve(runtime.cwd(), path);
  const info = await stat(absolute).catch(() => undefined);
  if (!info) throw new UsageError(`no such file or directory: ${path}`);
  if (!info.isDirectory()) return [path];
  const files: string[] = [];
  for (const entry of await readdir(absolute, { withFileTypes: true })) {
    if (!isSpiderFileName(entry.name)) continue;
    const isFile = entry.isFile() ||
      (entry.isSymbolicLink() && (await stat(join(absolute, entry.name)).catch(() => undefined))?.isFile());
    if (isFile) files.push(join(path, entry.name));
  }
  return files.sort();
}

/** The last non-empty line of a text, or undefined. */
function lastLine(text: string): string | undefined {
  return text.split("\n").map((line) => line.trim()).filter((line) => line !== "").at(-1);
}

/** Reads what `_inspect` printed; undefined when it is not a result (the process died before printing one). */
function parseResult(stdout: string): InspectResult | undefined {
  const line = lastLine(stdout);
  if (!line) return undefined;
  try {
    const value = JSON.parse(line);
    if (typeof value?.error === "string" || Array.isArray(value?.spiders)) return value as InspectResult;
  } catch {
    // Not JSON: the file printed something of its own after _inspect's line, or the process crashed.
  }
  return undefined;
}

/** Runs `_inspect` on one file in a new process; its failures, even a crash or a hang, come back as an error. */
function inspectInProcess(file: string, cwd: string): Promise<InspectResult> {
  const { command, args } = selfCli();
  const absolute = resolve(cwd, file);
  return new Promise((done) => {
    const child = spawn(command, [...args, "_inspect", absolute], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: INSPECT_TIMEOUT_MS,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => stdout += chunk);
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => stderr += chunk);
    child.on("error", (error) => done({ file, error: `cannot start ${command}: ${error.message}` }));
    child.on("close", (code, signal) => {
      const result = parseResult(stdout);
      if (result) return done({ ...result, file });
      if (signal) return done({ file, error: `did not load within ${INSPECT_TIMEOUT_MS / 1000} s (${signal})` });
      const reason = stderr.split("\n").map((line) => line.trim()).find((line) => line !== "");
      done({ file, error: reason ?? `loading it ended the process with exit code ${code}` });
    });
  });
}

/**
 * Inspects files a few at a time, each in a process of its own started in `cwd` (relative files are relative to
 * it); results come back in the files' order. `netweir serve` uses it too, with a project's directory as `cwd`.
 */
export async function inspectAll(files: string[], cwd: string = runtime.cwd()): Promise<InspectResult[]> {
  const results: InspectResult[] = new Array(files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const index = next++;
      results[index] = await inspectInProcess(files[index], cwd);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_INSPECTS, files.length) }, worker));
  return results;
}

/** Lists the spiders under `path`; returns the exit code (1 when a file failed to load). */
export async function listSpiders(path: string, json: boolean, context: CommandContext): Promise<number> {
  const results = await inspectAll(await spiderFiles(path));
  const entries: ListEntry[] = results.flatMap((result): ListEntry[] =>
    "error" in result
      ? [{ file: result.file, error: maskSecrets(result.error) }]
      : result.spiders.map((spider) => ({ name: spider.name, class: spider.className, file: result.file }))
  );
  if (json) {
    context.out(JSON.stringify(entries, null, 2) + "\n");
  } else {
    for (const entry of entries) {
      if ("error" in entry) context.err(`netweir: ${entry.file}: ${entry.error}\n`);
      else context.out(`${entry.name}\t${entry.file}\n`);
    }
  }
  return results.some((result) => "error" in result) ? 1 : 0;
}

/** Adds `list PATH [--json]`. */
export function addListCommand(program: Command, context: CommandContext): void {
  program
    .command("list <path>")
    .description("list the spiders in a file or a directory")
    .option("--json", "print a JSON array instead of lines")
    .addHelpText("after", HELP_AFTER)
    .action(async (path: string, options: { json?: boolean }) => {
      context.setExitCode(await listSpiders(path, options.json === true, context));
    });
}
