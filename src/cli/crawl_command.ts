/**
 * The command line of `netweir crawl FILE`: its options, parsed into {@link CrawlCommandOptions}. Running the crawl
 * is runCrawlCommand's job (src/cli/crawl.ts), loaded only when a crawl is asked for so that `list`, `version` and
 * `--help` never load the engine.
 */
import { type Command, InvalidArgumentError } from "commander";
import type { CommandContext } from "./context.ts";
import type { CrawlCommandOptions, CrawlOutput } from "./crawl_options.ts";

/** Runs a crawl and returns its exit code. */
export type RunCrawl = (options: CrawlCommandOptions) => Promise<number>;

const loadAndRun: RunCrawl = async (options) => {
  const { runCrawlCommand } = await import("./crawl.ts");
  return await runCrawlCommand(options);
};

/** Refuses a value without "=" or with nothing before it; what the key may be is for the crawl to check. */
export function keyValue(what: string): (value: string, previous: string[] | undefined) => string[] {
  return (value, previous = []) => {
    if (value.indexOf("=") < 1) throw new InvalidArgumentError(`expected ${what}=VALUE`);
    return [...previous, value];
  };
}

/** The options commander hands the action, beside the ones collected in command-line order. */
interface ParsedCrawlOptions {
  spider?: string;
  set?: string[];
  arg?: string[];
  queue?: string;
  queueKey?: string;
  statsFile?: string;
  logLevel?: string;
}

/**
 * Adds `crawl FILE` to `program`. `run` defaults to runCrawlCommand from src/cli/crawl.ts; tests pass their own to
 * see what the command line was parsed into.
 */
export function addCrawlCommand(program: Command, context: CommandContext, run: RunCrawl = loadAndRun): void {
  // -o and -O are two options but one list: their order on the command line is the feeds' order. Commander keeps
  // each option's values apart, so both parsers append to this one list (one per program: main() builds a program
  // per call).
  const outputs: CrawlOutput[] = [];
  const feed = (overwrite: boolean) => (path: string) => {
    outputs.push({ path, overwrite });
    return outputs;
  };
  program
    .command("crawl <file>")
    .description("run a spider from a .ts or .js file")
    .option(
      "-o, --output <path>",
      "append items to a feed, by extension: .jsonl, .json, .csv, .xml, .parquet; or s3://BUCKET/KEY, gs://BUCKET/KEY (repeatable)",
      feed(false),
    )
    .option("-O, --overwrite-output <path>", "write items to a feed, replacing the file (repeatable)", feed(true))
    .option("--spider <name>", "the spider to run when the file has several")
    .option("-s, --set <KEY=VALUE>", "a setting, e.g. -s max_items=500 (repeatable)", keyValue("KEY"))
    .option("-a, --arg <NAME=VALUE>", "a spider argument, set as a string attribute (repeatable)", keyValue("NAME"))
    .option("--queue <url>", "where requests wait: redis://host:port/db for a queue shared by processes")
    .option("--queue-key <key>", "name of the crawl's keys in the shared queue (default: the spider's name)")
    .option("--stats-file <path>", "write the crawl's stats to this file as JSON")
    .option("--log-level <level>", "least important log lines shown: debug, info, warning, error")
    .addHelpText(
      "after",
      `
The dedicated options are settings too: --queue URL is -s queue=URL, and so on; they win over the same -s.
Exit status: 0 when the crawl finished, 1 when it failed at run time or fetched nothing at all (every request
failed or was dropped), 2 for bad arguments, settings or spider files found before fetching.`,
    )
    .action(async (file: string, parsed: ParsedCrawlOptions) => {
      const dedicated: Array<[string, string | undefined]> = [
        ["queue", parsed.queue],
        ["queue_key", parsed.queueKey],
        ["stats_file", parsed.statsFile],
        ["log_level", parsed.logLevel],
      ];
      const settings = [
        ...(parsed.set ?? []),
        ...dedicated.flatMap(([key, value]) => value === undefined ? [] : [`${key}=${value}`]),
      ];
      const options: CrawlCommandOptions = { file, outputs: [...outputs], settings, args: parsed.arg ?? [] };
      if (parsed.spider !== undefined) options.spider = parsed.spider;
      context.setExitCode(await run(options));
    });
}
