/**
 * `netweir parse URL --spider-file FILE`: one callback run on one page, fetched as the crawl would fetch it, and what
 * it yields printed level by level (Scrapy's `scrapy parse`). `--depth N` follows the requests it yields, through the
 * crawl's own rules (allowedDomains, max_depth, duplicates), with their own callbacks. Without `--callback`, the
 * first of the spider's rules whose links match the URL picks it, as Scrapy's does; else the spider's `parse`. The
 * work is in parse_run.ts, loaded only when the command runs.
 */
import type { Command } from "commander";
import type { CommandContext } from "./context.ts";
import { addSpiderOptions } from "./spider_options.ts";
import type { ParseOptions } from "./parse_run.ts";

const HELP_AFTER = `
Output: for each level (1 is the URL itself), the pages fetched, the items their callbacks gave and the requests they
yielded; --jsonl prints one JSON object a line instead ({"level", "type": "page"|"item"|"request"|"error", ...}).
Exit status: 0 when every callback ran, 1 when one threw or the URL could not be fetched, 2 for bad arguments.`;

/** Adds `parse URL`. */
export function addParseCommand(program: Command, context: CommandContext): void {
  const command = program
    .command("parse <url>")
    .description("run a spider's callback on one page and print the items and requests it yields")
    .option("-c, --callback <name>", "the spider method to run (default: the rule that matches the URL, or parse)")
    .option("-d, --depth <n>", "levels of requests to follow (1: the URL only)", "1")
    .option("--meta <json>", "the request's meta, a JSON object")
    .option("--cb-kwargs <json>", "the callback's keyword arguments, a JSON object")
    .option("--render", "render the page in the browser (Chromium)")
    .option("--jsonl", "print JSON Lines instead of a readable report");
  addSpiderOptions(command).addHelpText("after", HELP_AFTER).action(async (url: string, options: ParseOptions) => {
    const { runParse } = await import("./parse_run.ts");
    context.setExitCode(await runParse(url, options, context));
  });
}
