/**
 * `netweir check FILE`: runs the contracts the file's spiders declare (a static `contracts` table, see
 * src/spider/contracts.ts) and prints a table of passes and failures, as Scrapy's `scrapy check`. The work is in
 * check_run.ts, loaded only when the command runs.
 */
import type { Command } from "commander";
import type { CommandContext } from "./context.ts";
import type { CheckOptions } from "./check_run.ts";
import { addSpiderOptions } from "./spider_options.ts";

const HELP_AFTER = `
Each contract's page is fetched as a crawl of the spider would fetch it; nothing is written (no feed, no archive).
With --cache DIR, pages are kept in DIR and read from it on later runs, so contracts run offline (in CI).
Output: PASS or FAIL, the spider and callback, the URL, and what was found or what broke the contract.
Exit status: 0 when every contract passed, 1 when one failed, 2 for bad arguments or a malformed contracts table.`;

/** Adds `check FILE`. */
export function addCheckCommand(program: Command, context: CommandContext): void {
  const command = program
    .command("check <file>")
    .description("run the contracts of a file's spiders")
    .option("--cache <dir>", "keep the pages in this HTTP cache and read them from it on later runs")
    .option("--list", "list the contracts without running them");
  addSpiderOptions(command, { withFile: false }).addHelpText("after", HELP_AFTER).action(
    async (file: string, options: CheckOptions) => {
      const { runCheck } = await import("./check_run.ts");
      context.setExitCode(await runCheck(file, options, context));
    },
  );
}
