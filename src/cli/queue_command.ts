/**
 * The command line of `netweir queue push|status|clear|items URL KEY`: feeding a crawl's shared Redis queue from
 * outside it, seeing where it stands, and deleting its keys. The work is in src/cli/queue.ts, loaded only when a
 * queue command runs, so that `list`, `version` and `--help` never load the Redis client.
 */
import { type Command, InvalidArgumentError } from "commander";
import { UsageError } from "../errors.ts";
import type { CommandContext } from "./context.ts";

const QUEUE_HELP_AFTER = `
URL is the crawl's Redis: redis://[:password@]host:port/db, rediss:// for TLS (?ca=FILE for a private CA,
&cert=FILE&key=FILE for a client certificate), or redis+unix:///path.sock?db=0&pass=...
KEY is the crawl's key: the spider's name, or its queue_key setting.
Exit status: 0 on success, 1 when Redis cannot be reached, 2 for a bad URL, key or option.`;

const PUSH_HELP_AFTER = `
Each URL becomes a start request: the spider's parse (or its rules) takes it, at depth 0, through its request
middlewares. URLs the crawl has already seen are skipped unless --dont-filter is given. "-" reads standard input
as it goes, one URL a line (blank lines and lines starting with # are skipped), and sends 1,000 URLs at a time.
Prints "pushed N, skipped M (already seen)".

--json: each argument is instead a file of JSON Lines ("-" for standard input), one request a line, e.g.
  {"url": "https://example.com/search", "method": "POST", "body": "q=books", "callback": "parseResults",
   "meta": {"page": 1}, "cbKwargs": {"shelf": "new"}, "priority": 5}
Fields: url, method, headers, body, callback, errback (method names), meta, cbKwargs, priority, dontFilter,
timeout, allowRedirects, auth, render, steps. Each is checked as a crawl checks every queued request; callbacks
must be methods of the spider given with --spider FILE (without it: any name but a reserved one), and uploads
(set_input_files) must be inside that spider's browser_upload_dir. A bad line is reported on standard error as
"line N of SOURCE: what is wrong" and left out; the rest are pushed, and the summary adds ", bad B".
Exit status 2 when any line was bad (after the good ones were pushed).`;

const STATUS_HELP_AFTER = `
Prints five lines: waiting (requests in the queue), held (taken by a process and not finished), processes (taking
part), seen (the duplicate filter's size) and queued (every request ever queued; more than seen once requests with
--dont-filter went in again). While processes are live, it adds the crawl's totals over them (pages, items,
errors, pages/s over the last minute) and a line per process: its host, pid, totals and last heartbeat, as of that
heartbeat (every third of queue_lease). --json prints it all as one JSON object ("crawl" and "live" for the added
part).`;

/** Parses --priority: any finite number, higher fetched first. */
function parsePriority(text: string): number {
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value)) {
    throw new InvalidArgumentError("expected a number, e.g. --priority 10");
  }
  return value;
}

const ITEMS_HELP_AFTER = `
KEY here is the stream a crawl wrote with -o redis://host:port/db?stream=KEY. Each entry's item goes to the
feeds, oldest first; with no -o or -O, to standard output as JSON Lines. --follow then waits for new entries until
SIGINT or SIGTERM, and closes the feeds cleanly. Prints "exported N items from KEY" on standard error.`;

interface PushFlags {
  priority?: number;
  dontFilter?: boolean;
  json?: boolean;
  spider?: string;
}

/** Adds `queue` and its three subcommands to `program`. */
export function addQueueCommand(program: Command, context: CommandContext): void {
  const queue = program
    .command("queue")
    .description("feed a crawl's shared Redis queue, show its status, clear it, or export its items stream")
    .addHelpText("after", QUEUE_HELP_AFTER);

  queue
    .command("push <url> <key> <urls...>")
    .description('push URLs into a crawl as start requests ("-" reads them from standard input)')
    .option("--priority <n>", "priority of the pushed requests; higher is fetched first (default 0)", parsePriority)
    .option("--dont-filter", "queue URLs even if the crawl has seen them")
    .option("--json", "read whole requests, as JSON Lines, from the files given (- for standard input)")
    .option("--spider <file>", "with --json: check callbacks and uploads against this spider file's spider")
    .addHelpText("after", PUSH_HELP_AFTER)
    .action(async (url: string, key: string, urls: string[], flags: PushFlags) => {
      if (urls.filter((arg) => arg === "-").length > 1) {
        throw new UsageError('"-" (standard input) can be given only once');
      }
      if (flags.spider !== undefined && flags.json !== true) throw new UsageError("--spider goes with --json");
      const { runQueuePush } = await import("./queue.ts");
      await runQueuePush({
        url,
        key,
        urls,
        priority: flags.priority,
        dontFilter: flags.dontFilter === true,
        json: flags.json === true,
        spiderFile: flags.spider,
      }, context);
    });

  queue
    .command("status <url> <key>")
    .description("show where a crawl stands: waiting, held, processes, seen, queued, and its live processes' totals")
    .option("--json", "print one JSON object")
    .addHelpText("after", STATUS_HELP_AFTER)
    .action(async (url: string, key: string, flags: { json?: boolean }) => {
      const { runQueueStatus } = await import("./queue.ts");
      await runQueueStatus({ url, key, json: flags.json === true }, context);
    });

  // -o and -O make one list in command-line order, as in `netweir crawl`.
  const outputs: Array<{ path: string; overwrite: boolean }> = [];
  const feed = (overwrite: boolean) => (path: string) => {
    outputs.push({ path, overwrite });
    return outputs;
  };
  queue
    .command("items <url> <key>")
    .description("export the items a crawl wrote to a Redis stream to feeds (any format), and follow it live")
    .option(
      "-o, --output <path>",
      "append the items to a feed, by extension (repeatable; default: standard output)",
      feed(false),
    )
    .option("-O, --overwrite-output <path>", "write the items to a feed, replacing the file (repeatable)", feed(true))
    .option("--follow", "after the stream's items, wait for new ones until SIGINT or SIGTERM")
    .addHelpText("after", ITEMS_HELP_AFTER)
    .action(async (url: string, key: string, flags: { follow?: boolean }) => {
      const { runQueueItems } = await import("./queue_items.ts");
      await runQueueItems({ url, key, outputs: [...outputs], follow: flags.follow === true }, context);
    });

  queue
    .command("clear <url> <key>")
    .description("delete a crawl's keys: its queue, its duplicate filter and its held requests")
    .addHelpText("after", "\nPrints how many keys were deleted. The next crawl under KEY starts from nothing.")
    .action(async (url: string, key: string) => {
      const { runQueueClear } = await import("./queue.ts");
      await runQueueClear({ url, key }, context);
    });
}
