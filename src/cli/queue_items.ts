/**
 * `netweir queue items URL KEY -o FILE [--follow]`: copies the items of a Redis stream written by `-o
 * redis://...?stream=KEY` into any feed (a file of any format, standard output), oldest first, 1,000 entries a call;
 * with `--follow` it then waits for new entries until SIGINT or SIGTERM and closes the feeds cleanly.
 */
import { QueueError } from "../errors.ts";
import { createLogger } from "../log.ts";
import { FeedSet, parseFeedTarget } from "../output/feeds.ts";
import { isTransientRedisError, STREAM_ITEM_FIELD } from "../output/redis_stream_feed.ts";
import { RedisConnection } from "../queue/redis_client.ts";
import { runtime } from "../runtime/mod.ts";
import { maskQueueUrl, parseRedisUrl } from "../settings/redis_url.ts";
import type { Item, Logger } from "../spider/types.ts";
import type { CrawlOutput } from "./crawl_options.ts";
import type { CommandContext } from "./context.ts";
import { asUsage } from "./errors.ts";

/** What `netweir queue items` was asked to do. */
export interface QueueItemsOptions {
  url: string;
  /** The stream's key. */
  key: string;
  /** The feeds, in command-line order; standard output (JSON Lines) when there are none. */
  outputs: CrawlOutput[];
  follow: boolean;
}

const BATCH = 1_000;
/** How long one XREAD waits for new entries: also how soon a signal is acted on. */
const BLOCK_MS = 1_000;
const TIMEOUT_MS = 5_000;

/** A stream entry as ioredis gives it: its id and its fields and values in turn. */
type Entry = [string, string[]];

/** The items of some entries; an entry without a JSON item is skipped with a warning naming its id. */
function itemsOf(entries: Entry[], key: string, log: Logger): Item[] {
  const items: Item[] = [];
  for (const [id, fields] of entries) {
    const at = fields.findIndex((field, index) => index % 2 === 0 && field === STREAM_ITEM_FIELD);
    try {
      if (at < 0) throw new Error(`no ${STREAM_ITEM_FIELD} field`);
      const item = JSON.parse(fields[at + 1]);
      if (item === null || typeof item !== "object" || Array.isArray(item)) throw new Error("not a JSON object");
      items.push(item);
    } catch (error) {
      log.warning(`entry ${id} of ${key} skipped: ${(error as Error).message}`);
    }
  }
  return items;
}

/** Exports the stream; prints `exported N items from KEY` on standard error at the end. */
export async function runQueueItems(options: QueueItemsOptions, context: CommandContext): Promise<void> {
  const outputs = options.outputs.length > 0 ? options.outputs : [{ path: "-", overwrite: false }];
  const targets = outputs.map((output) => parseFeedTarget(output.path, output.overwrite));
  const target = asUsage(() => parseRedisUrl(options.url));
  const label = maskQueueUrl(options.url);
  const log = createLogger("info", (line) => context.err(line));
  const connection = await RedisConnection.open(target, options.url, TIMEOUT_MS);
  let exported = 0;
  try {
    const redis = connection.client;
    const type = await redis.type(options.key);
    if (type !== "none" && type !== "stream") {
      throw new QueueError(`key ${options.key} on ${label} holds a ${type}, not a stream`);
    }
    const feeds = await FeedSet.open(targets, log);
    const write = async (entries: Entry[]) => {
      const items = itemsOf(entries, options.key, log);
      await feeds.write(items);
      exported += items.length;
    };
    let stopped = false;
    const removers = (["SIGINT", "SIGTERM"] as const).map((signal) => runtime.onSignal(signal, () => stopped = true));
    try {
      // Everything there now, oldest first; each call starts after the last id read.
      let last = "-";
      for (;;) {
        const start = last === "-" ? "-" : `(${last}`;
        const entries = await redis.xrange(options.key, start, "+", "COUNT", BATCH) as Entry[];
        if (entries.length > 0) last = entries.at(-1)![0];
        await write(entries);
        if (entries.length < BATCH || stopped) break;
      }
      if (options.follow) await follow(redis, options.key, last === "-" ? "0-0" : last, write, () => stopped, log);
    } finally {
      for (const remove of removers) remove();
      await feeds.close();
    }
  } finally {
    connection.close();
  }
  context.err(`exported ${exported} ${exported === 1 ? "item" : "items"} from ${options.key}\n`);
}

/** Waits for new entries after `last` until `stopped`; while Redis is unreachable it waits and tries again. */
async function follow(
  redis: RedisConnection["client"],
  key: string,
  from: string,
  write: (entries: Entry[]) => Promise<void>,
  stopped: () => boolean,
  log: Logger,
): Promise<void> {
  let last = from;
  let unreachable = false;
  while (!stopped()) {
    let answer: Array<[string, Entry[]]> | null;
    try {
      answer = await redis.xread("COUNT", BATCH, "BLOCK", BLOCK_MS, "STREAMS", key, last) as typeof answer;
    } catch (error) {
      if (!isTransientRedisError(error)) throw error;
      if (!unreachable) log.warning(`Redis unreachable; following ${key} again once it is back`);
      unreachable = true;
      await new Promise((resolve) => setTimeout(resolve, 500));
      continue;
    }
    unreachable = false;
    const entries = answer?.[0]?.[1] ?? [];
    if (entries.length === 0) continue;
    last = entries.at(-1)![0];
    await write(entries);
  }
}
