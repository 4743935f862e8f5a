/**
 * What `netweir queue push|status|clear` do, once the command line is parsed (src/cli/queue_command.ts). Loaded
 * only when a queue command runs, so other commands never load the Redis client.
 *
 * A bad Redis URL or an empty key is a TypeError from the Queue (exit 2); a Redis that cannot be reached is a
 * QueueError (exit 1). main() prints either as one line, password masked.
 */
import { Queue } from "../queue/queue.ts";
import type { FrontierStatus } from "../queue/frontier.ts";
import { runtime } from "../runtime/mod.ts";
import type { CommandContext } from "./context.ts";
import { pushUrls } from "./queue_input.ts";
import { type BadLine, jsonRequests, type LinePlace } from "./queue_json_input.ts";
import type { PushChecks } from "../queue/pushed_request.ts";
import { createSpider, loadSpiders, pickSpider } from "../load/spiders.ts";
import { maskSecrets } from "../log.ts";
import { formatCrawlStats, statusJson } from "./queue_stats.ts";
import { asUsage } from "./errors.ts";

/** Where the queue is: the Redis URL and the crawl's key. */
export interface QueueTarget {
  url: string;
  key: string;
}

/** What `netweir queue push` was asked to do. */
export interface QueuePushOptions extends QueueTarget {
  /** URLs, with `-` for standard input (at most once). */
  urls: string[];
  priority?: number;
  dontFilter?: boolean;
  /** `urls` are files of JSON Lines requests (`-` for standard input). */
  json?: boolean;
  /** With `json`: the spider file whose spider the requests are checked against. */
  spiderFile?: string;
}

/** Runs `body` with the queue open, closing it whatever happens. */
async function withQueue<T>(target: QueueTarget, body: (queue: Queue) => Promise<T>): Promise<T> {
  // The URL and key are the user's: a bad one is a UsageError (exit 2).
  const queue = asUsage(() => new Queue(target.url, target.key));
  try {
    return await body(queue);
  } finally {
    await queue.close();
  }
}

/** `netweir queue push`: prints `pushed N, skipped M (already seen)`. */
export async function runQueuePush(options: QueuePushOptions, context: CommandContext): Promise<void> {
  if (options.json) return await runJsonPush(options, context);
  const { pushed, skipped } = await withQueue(
    options,
    (queue) =>
      queue.push(pushUrls(options.urls, () => runtime.stdin()), {
        priority: options.priority,
        dontFilter: options.dontFilter,
      }),
  );
  context.out(`pushed ${pushed}, skipped ${skipped} (already seen)\n`);
}

/**
 * `netweir queue push --json`: each bad line is one line on standard error (its number, what is wrong) and is left
 * out; the summary adds how many were bad, and any bad line makes the exit status 2.
 */
async function runJsonPush(options: QueuePushOptions, context: CommandContext): Promise<void> {
  const checks = options.spiderFile === undefined ? {} : await spiderChecks(options.spiderFile, options.key);
  let bad = 0;
  const report = ({ source, line, reason }: BadLine) => {
    bad++;
    context.err(`netweir: line ${line} of ${source}: ${maskSecrets(reason)}\n`);
  };
  const place: LinePlace = { source: "", line: 0 };
  const { pushed, skipped } = await withQueue(
    options,
    (queue) =>
      queue.push(jsonRequests(options.urls, () => runtime.stdin(), place, report), {
        ...checks,
        priority: options.priority,
        dontFilter: options.dontFilter,
        onBad: ({ reason }) => report({ ...place, reason }),
      }),
  );
  context.out(`pushed ${pushed}, skipped ${skipped} (already seen)${bad > 0 ? `, bad ${bad}` : ""}\n`);
  if (bad > 0) context.setExitCode(2);
}

/** The spider of `--spider FILE` (the one named KEY when it has several), and its upload directory. */
async function spiderChecks(file: string, key: string): Promise<PushChecks> {
  const classes = await loadSpiders(file);
  const spider = createSpider(pickSpider(classes, classes.length > 1 ? key : undefined, file));
  return { spider, uploadDir: spider.settings.resolve().browserUploadDir };
}

/**
 * The five lines of `netweir queue status`, in the spec's order; while processes are live, then the crawl's totals
 * and a line for each process (see formatCrawlStats).
 */
export function formatStatus(status: FrontierStatus): string {
  const { waiting, held, processes, seen, queued } = status;
  return `waiting: ${waiting}\nheld: ${held}\nprocesses: ${processes}\nseen: ${seen}\nqueued: ${queued}\n` +
    formatCrawlStats(status);
}

/** `netweir queue status`: the lines of formatStatus, or one JSON object with `json` (see statusJson). */
export async function runQueueStatus(options: QueueTarget & { json?: boolean }, context: CommandContext) {
  const status = await withQueue(options, (queue) => queue.status({ live: true }));
  context.out(options.json ? JSON.stringify(statusJson(status)) + "\n" : formatStatus(status));
}

/** `netweir queue clear`: prints how many keys were deleted. */
export async function runQueueClear(options: QueueTarget, context: CommandContext): Promise<void> {
  const deleted = await withQueue(options, (queue) => queue.clear());
  context.out(`deleted ${deleted} ${deleted === 1 ? "key" : "keys"} of ${options.key}\n`);
}
