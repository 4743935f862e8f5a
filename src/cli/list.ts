/**
 * `netweir list PATH [--json]` (C24): the spiders in a file, or in a directory's top-level .ts/.js files. Each file
 * is imported in a process of its own (the hidden `_inspect` command), so one broken file is reported by name while
 * the others are still listed.
 */
import type { Command } from "commander";
import { inspectAll } from "../load/inspect_all.ts";
import { spiderFiles } from "../load/spider_files.ts";
import { maskSecrets } from "../log.ts";
import type { CommandContext } from "./context.ts";

export { inspectAll, spiderFiles };

/** One line of `list --json`: a spider, or a file that could not be loaded. */
export type ListEntry = { name: string; class: string; file: string } | { file: string; error: string };

const HELP_AFTER = `
PATH is a .ts, .js, .mts or .mjs file, or a directory whose top-level ones are read (not its subdirectories;
*_test.ts, *.test.ts and .d.ts files are skipped). Each file is loaded in a separate process.

Output: one spider a line, "NAME<TAB>FILE". A file that fails to load is reported on standard error as
"netweir: FILE: MESSAGE" and the other files are still listed.

With --json: one JSON array in file order, holding {"name", "class", "file"} for each spider and
{"file", "error"} for each file that failed to load.

Exit status: 0 when every file loaded, 1 when any failed, 2 when PATH does not exist.`;

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
