/**
 * Items in a Redis Stream (`-o redis://host:port/db?stream=KEY`): one output that every process of a shared crawl
 * appends to. Like a local feed, a page's items are in the stream when `write` resolves, and the engine waits for
 * that before it tells the queue the page is finished, so a process killed at any moment loses no item of a page
 * the queue counts done. A page's items go in together (one script, atomic): a consumer never sees half a page.
 */
import { randomUUID } from "node:crypto";
import { QueueError, UsageError } from "../errors.ts";
import { describe, isLoading, RedisConnection } from "../queue/redis_client.ts";
import { maskQueueUrl, parseRedisUrl } from "../settings/redis_url.ts";
import type { Item } from "../spider/types.ts";
import type { Feed } from "./feed.ts";
import { retryWrite } from "./retry_write.ts";

/** The field of each stream entry that holds the item, as JSON. */
export const STREAM_ITEM_FIELD = "item";

/** How long one call to Redis may take, connecting included. */
const TIMEOUT_MS = 5_000;
/** How long a page's write is tried again while Redis is unreachable, before the write fails. */
const RETRY_FOR_MS = 60_000;
/** How long a process's record of its writes outlives its last write: a killed process's record goes by itself. */
const WRITES_RECORD_SECONDS = 3_600;
/** Confirmed writes forgotten per call at most (Lua's unpack has a limit; the rest go with the next call). */
const FORGET_PER_CALL = 1_000;

/**
 * Adds a page's items unless this write is already in. KEYS[1] is the stream, KEYS[2] this feed's record of its
 * writes (a hash, one field per write whose answer it has not seen yet). ARGV: the record's lifetime, this write's
 * number, how many confirmed writes to forget, their numbers, then the items. A write tried again after its answer
 * was lost (Redis restarted, a timeout) finds its number in the record and adds nothing the second time; a number is
 * forgotten once its answer came back, so the record holds about as many fields as pages being written.
 */
export const ADD_ITEMS = `
local forget = tonumber(ARGV[3])
if forget > 0 then redis.call('HDEL', KEYS[2], unpack(ARGV, 4, 3 + forget)) end
local fresh = redis.call('HSETNX', KEYS[2], ARGV[2], '1')
redis.call('EXPIRE', KEYS[2], ARGV[1])
if fresh == 0 then return 0 end
for i = 4 + forget, #ARGV do redis.call('XADD', KEYS[1], '*', '${STREAM_ITEM_FIELD}', ARGV[i]) end
return #ARGV - 3 - forget`;

/** Whether an output path names a Redis server rather than a file. */
export function isRedisStreamPath(path: string): boolean {
  return /^(?:redis|rediss|redis\+unix):\/\//i.test(path);
}

/** A Redis stream output: the server's URL as the queue takes it, and the stream's key. */
export interface RedisStreamTarget {
  url: string;
  stream: string;
}

/** Parses `-o redis://.../db?stream=KEY`; a UsageError (exit 2) names what is wrong, the password masked. */
export function parseRedisStreamTarget(path: string): RedisStreamTarget {
  const masked = maskQueueUrl(path);
  const stream = URL.parse(path)?.searchParams.get("stream");
  if (!stream) throw new UsageError(`output ${masked} names no stream; add ?stream=KEY (the stream's Redis key)`);
  try {
    parseRedisUrl(path);
  } catch (error) {
    throw new UsageError(`output ${(error as Error).message.replace(/^queue URL /, "")}`, { cause: error });
  }
  return { url: path, stream };
}

/** Whether a failure may pass by itself (Redis down or restarting), as opposed to a refusal that will recur. */
export function isTransientRedisError(error: unknown): boolean {
  const message = (error as Error)?.message ?? "";
  return isLoading(error) ||
    /Stream isn't writeable|Connection is closed|max retries per request|Command timed out|ECONN|EPIPE/i.test(message);
}

/** A feed appending each page's items to one Redis stream. */
export class RedisStreamFeed implements Feed {
  /** The URL with its password masked: it is printed in the crawl's closing lines. */
  readonly path: string;
  readonly #connection: RedisConnection;
  readonly #stream: string;
  readonly #writes = new Set<Promise<void>>();
  /** This feed's record of its writes in Redis (see ADD_ITEMS). */
  readonly #record: string;
  #nextWrite = 1;
  /** Writes whose answer came back, for the record to forget with the next call. */
  #confirmed: number[] = [];
  #closing: Promise<void> | undefined;

  private constructor(connection: RedisConnection, target: RedisStreamTarget) {
    this.#connection = connection;
    this.#stream = target.stream;
    this.path = maskQueueUrl(target.url);
    this.#record = `${target.stream}:writes:${randomUUID()}`;
  }

  /** Connects and checks the server, and that the key is a stream or free: a QueueError (exit 1) says why not. */
  static async open(path: string): Promise<RedisStreamFeed> {
    const target = parseRedisStreamTarget(path);
    const connection = await RedisConnection.open(parseRedisUrl(target.url), target.url, TIMEOUT_MS);
    const feed = new RedisStreamFeed(connection, target);
    try {
      const type = await connection.client.type(target.stream);
      if (type !== "none" && type !== "stream") {
        throw new QueueError(`output ${feed.path}: key ${target.stream} holds a ${type}, not a stream`);
      }
      connection.client.defineCommand("netweirAddItems", { numberOfKeys: 2, lua: ADD_ITEMS });
    } catch (error) {
      connection.close();
      throw error;
    }
    return feed;
  }

  write(items: Item[]): Promise<void> {
    if (this.#closing) return Promise.reject(new Error(`${this.path} is closed; items not written`));
    if (items.length === 0) return Promise.resolve();
    // Encoded at the call, so the batch is fixed then and a bad item fails this write only.
    const encoded = items.map((item) => JSON.stringify(item));
    const written = this.#add(encoded);
    this.#writes.add(written);
    written.finally(() => this.#writes.delete(written)).catch(() => {});
    return written;
  }

  async #add(encoded: string[]): Promise<void> {
    const number = this.#nextWrite++;
    // deno-lint-ignore no-explicit-any
    const client = this.#connection.client as any;
    await retryWrite(async () => {
      const forget = this.#confirmed.splice(0, FORGET_PER_CALL);
      try {
        await client.netweirAddItems(
          this.#stream,
          this.#record,
          WRITES_RECORD_SECONDS,
          number,
          forget.length,
          ...forget,
          ...encoded,
        );
      } catch (error) {
        // Not known to be forgotten: HDEL is idempotent, so they go with the next call.
        this.#confirmed.push(...forget);
        throw error;
      }
      this.#confirmed.push(number);
    }, {
      transient: isTransientRedisError,
      forMs: RETRY_FOR_MS,
      fail: (error) => new QueueError(`cannot write items to ${this.path}: ${describe(error)}`, { cause: error }),
    });
  }

  close(): Promise<void> {
    this.#closing ??= Promise.allSettled([...this.#writes]).then(async () => {
      // The record is needed only while writes may be tried again; the last ones are over.
      await this.#connection.client.del(this.#record).catch(() => {});
      this.#connection.close();
    });
    return this.#closing;
  }
}
