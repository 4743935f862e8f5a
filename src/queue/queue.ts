// `await using queue = new Queue(...)` needs Symbol.asyncDispose, which TypeScript's libs have only from esnext
// (ES2026); without this line the shipped .d.ts fails to type-check for a user on target es2022 who does not set
// skipLibCheck. preserve="true" keeps it in the emitted .d.ts, where it adds that one lib for the user too.
/// <reference lib="esnext.disposable" preserve="true" />
/**
 * Feeding a running crawl from outside it: `Queue` pushes URLs into a crawl's shared Redis queue, reports where the
 * crawl stands, and clears its keys. It is what `netweir queue push|status|clear` runs, and it writes exactly what
 * a crawl process would (the same encoding, fingerprints and PUSH script), so a pushed URL is a start request the
 * crawl cannot tell from its own.
 *
 * ```ts ignore
 * await using queue = new Queue("redis://10.0.0.5:6379/0", "Books");
 * const { pushed, skipped } = await queue.push(["https://books.toscrape.com/catalogue/page-2.html"], { priority: 10 });
 * ```
 */
import { platform } from "node:os";
import { QueueError } from "../errors.ts";
import { encodeStartUrl } from "./codec.ts";
import { fingerprint } from "../spider/fingerprint.ts";
import type { FrontierStatus } from "./frontier.ts";
import { readStatus } from "./live_processes.ts";
import { describe, isLoading, RedisConnection, type ScriptArg } from "./redis_client.ts";
import { retry } from "./retry.ts";
import { keyPrefix, startLine } from "./redis_frontier.ts";
import type { ScriptName } from "./redis_scripts.ts";
import { type PushChecks, type PushedRequest, pushedRequestLine } from "./pushed_request.ts";
import { checkQueueKey, maskQueueUrl, parseRedisUrl, type RedisTarget } from "../settings/redis_url.ts";

/** URLs sent to Redis in one round trip, and the most a push holds in memory at once. */
export const PUSH_BATCH = 1000;

/** How long the mark `clear` leaves for processes still running is kept. */
const CLEARED_MARK_SECONDS = 3600;

/** Keys deleted per DEL (and asked for per SCAN) by `clear`. */
const CLEAR_BATCH = 1000;

/** A third of the default lease (60 s): no answer is awaited longer, as a crawl process would not. */
const DEFAULT_TIMEOUT_SECONDS = 20;

/** Options for a {@link Queue}. */
export interface QueueOptions {
  /** Seconds to wait for any one answer from Redis, connecting included (default 20). */
  timeoutSeconds?: number;
  /** Seconds a pushed URL may wait for its batch to fill before it is sent anyway (default 1). */
  flushSeconds?: number;
}

/** How URLs and requests go in. */
export interface PushOptions extends PushChecks {
  /** Higher is fetched first (default 0); a pushed request's own `priority` wins. */
  priority?: number;
  /** Queue them even if the crawl has seen them before (default false); a pushed request's own wins. */
  dontFilter?: boolean;
  /**
   * Told of each URL or request that cannot be pushed, which is then left out and the push goes on. Without it,
   * the first one is a TypeError.
   */
  onBad?: (bad: BadPush) => void;
}

/** A URL or request a push left out: its place in the input (from 1) and what is wrong with it. */
export interface BadPush {
  /** Its place among what the push was given, from 1. */
  position: number;
  /** What is wrong with it, in a few words. */
  reason: string;
}

/** What {@link Queue.status} reports. */
export interface StatusOptions {
  /** Add the crawl-wide stats: the live processes' totals and one entry per process (default false). */
  live?: boolean;
}

/** What a push did: `pushed` went into the queue, `skipped` were left out as already seen. */
export interface PushResult {
  /** URLs that went into the queue. */
  pushed: number;
  /** URLs left out as already seen. */
  skipped: number;
}

function notHttp(url: unknown): TypeError {
  return new TypeError(`not an http(s) URL: ${JSON.stringify(String(url).slice(0, 200))}`);
}

/** Parses an absolute http(s) URL; anything else is a TypeError quoting (the start of) it. */
export function checkHttpUrl(url: string): URL {
  const parsed = typeof url === "string" ? URL.parse(url) : null;
  if (parsed === null || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) throw notHttp(url);
  return parsed;
}

/**
 * A URL's line of a push payload: the same line pushLine() writes for the same start request, without a Request
 * object for every URL. Throws TypeError when it is not http(s).
 */
function urlLine(url: string, priority: number, dontFilter: boolean): string {
  const parsed = checkHttpUrl(url);
  const href = parsed.href;
  const fingerprintHex = fingerprint({ method: "GET", url: href }).slice(0, 32);
  return startLine(fingerprintHex, priority, dontFilter, parsed.hostname, encodeStartUrl(href, priority, dontFilter));
}

/** A Redis glob pattern matching `text` literally. */
export function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, "\\$&");
}

/**
 * One crawl's shared queue, seen from outside the crawl. The URL and key are checked at once (TypeError); the
 * connection is made on first use, and a Redis that cannot be reached or fails is a QueueError, password masked.
 *
 * @example Feeding a crawl's queue, with a Redis of its own on 127.0.0.1 started for the example
 * ```ts
 * import { Queue } from "netweir";
 * import assert from "node:assert/strict";
 *
 * // A throwaway redis-server on a free port, keeping nothing on disk.
 * const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
 * const port = listener.addr.port;
 * listener.close();
 * const redis = new Deno.Command("redis-server", {
 *   args: ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
 *   stdout: "null",
 * }).spawn();
 * for (let tries = 0; ; tries++) { // until it accepts connections
 *   try {
 *     (await Deno.connect({ hostname: "127.0.0.1", port })).close();
 *     break;
 *   } catch (error) {
 *     if (tries === 100) throw error;
 *     await new Promise((resolve) => setTimeout(resolve, 50));
 *   }
 * }
 *
 * try {
 *   await using queue = new Queue(`redis://127.0.0.1:${port}/0`, "Books");
 *   const urls = ["https://books.example/page-2", "https://books.example/page-3"];
 *   assert.deepEqual(await queue.push(urls, { priority: 10 }), { pushed: 2, skipped: 0 });
 *   assert.deepEqual(await queue.push(urls), { pushed: 0, skipped: 2 }); // the crawl has seen them
 *   assert.equal((await queue.status()).waiting, 2);
 *   assert.ok(await queue.clear() > 0);
 * } finally {
 *   redis.kill("SIGTERM");
 *   await redis.status;
 * }
 * ```
 */
export class Queue {
  readonly #url: string;
  readonly #target: RedisTarget;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #flushMs: number;
  #connecting: Promise<RedisConnection> | undefined;
  #closed = false;

  /** The queue of the crawl under `key` in the Redis at `url`; nothing is connected until it is first used. */
  constructor(url: string, key: string, options: QueueOptions = {}) {
    if (typeof url !== "string") throw new TypeError("queue URL must be a string");
    if (typeof key !== "string") throw new TypeError("queue key must be a string");
    this.#target = parseRedisUrl(url, { windows: platform() === "win32" });
    this.#prefix = keyPrefix(checkQueueKey(key));
    this.#url = url;
    const timeout = options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
    if (!(typeof timeout === "number" && timeout > 0 && Number.isFinite(timeout))) {
      throw new RangeError(`queue timeout must be a number of seconds > 0, not ${timeout}`);
    }
    this.#timeoutMs = Math.ceil(timeout * 1000);
    const flush = options.flushSeconds ?? 1;
    if (!(typeof flush === "number" && flush >= 0 && Number.isFinite(flush))) {
      throw new RangeError(`queue flush must be a number of seconds >= 0, not ${flush}`);
    }
    this.#flushMs = flush * 1000;
  }

  #connection(): Promise<RedisConnection> {
    if (this.#closed) return Promise.reject(new QueueError("the queue is closed"));
    if (!this.#connecting) {
      this.#connecting = RedisConnection.open(this.#target, this.#url, this.#timeoutMs);
      // A failed connection is not kept: the next call tries again.
      this.#connecting.catch(() => this.#connecting = undefined);
    }
    return this.#connecting;
  }

  /**
   * Runs `body` on the connection; anything Redis throws becomes a QueueError naming the server. A server still
   * loading its data (just restarted) is waited for, as a crawl's process waits: up to a lease (three timeouts).
   */
  async #use<T>(body: (connection: RedisConnection) => Promise<T>): Promise<T> {
    const started = Date.now();
    const connection = await this.#connection();
    try {
      return await retry(() => body(connection), (error) => {
        if (!isLoading(error) || Date.now() - started >= 3 * this.#timeoutMs) throw error;
      });
    } catch (error) {
      if (error instanceof QueueError) throw error;
      throw new QueueError(`the queue at ${maskQueueUrl(this.#url)} failed: ${describe(error)}`, { cause: error });
    }
  }

  #script(name: ScriptName, args: ScriptArg[]): Promise<unknown> {
    return this.#use((connection) => connection.script(name, [this.#prefix, ...args]));
  }

  /**
   * Pushes URLs, or whole requests (method, headers, body, meta, cbKwargs, callback by name, steps...), as start
   * requests, 1,000 per round trip, reading `urls` as it goes (an async iterable is never read more than a batch
   * ahead, so a list of ten million is fine). Those the crawl has seen are skipped unless `dontFilter`.
   *
   * A request is checked as a crawl checks every queued one (see {@link PushChecks}: give `spider` to hold callback
   * names to its methods, `uploadDir` to allow uploads from inside it). A URL that is not http(s), or a request a
   * crawl would not take, is a TypeError naming its place, thrown before its batch is sent (batches before it are
   * in the queue by then); with `onBad`, it is reported there and left out instead.
   */
  async push(
    urls: Iterable<string | PushedRequest> | AsyncIterable<string | PushedRequest>,
    options: PushOptions = {},
  ): Promise<PushResult> {
    if (options.priority !== undefined && !Number.isFinite(options.priority)) {
      throw new RangeError(`priority must be a finite number, not ${options.priority}`);
    }
    // Connected before the first URL is read: a Redis that cannot be reached is reported at once, not after a
    // batch of standard input has been typed or piped.
    await this.#connection();
    const result: PushResult = { pushed: 0, skipped: 0 };
    // The batch is built as bytes, outside the JavaScript heap: a thousand strings kept until the batch is sent
    // would survive collections and make the engine grow its young generation, which is most of the memory a long
    // push would otherwise take.
    const batch = new PayloadBuffer();
    let count = 0;
    let position = 0;
    const send = async () => {
      clearTimeout(timer);
      // The batch's bytes go to Redis uncopied: the buffer is reused only once Redis has answered.
      const added = Number(await this.#script("nwPush", [batch.bytes()]));
      result.pushed += added;
      result.skipped += count - added;
      batch.clear();
      count = 0;
    };
    // URLs that trickle in (`tail -f log | netweir queue push ... -`) are sent once they have waited this long,
    // rather than when a thousand have come. The timer's send runs while the loop awaits the next URL; the loop
    // waits for it before it touches the batch again.
    let timer: ReturnType<typeof setTimeout> | undefined;
    let sending: Promise<void> | undefined;
    const sendLater = () => {
      timer = setTimeout(() => {
        sending = send().finally(() => sending = undefined);
        // Its failure is the loop's to report, when it next awaits the send.
        sending.catch(() => {});
      }, this.#flushMs);
    };
    const priority = options.priority ?? 0;
    const dontFilter = options.dontFilter ?? false;
    const defaults = { priority, dontFilter };
    try {
      for await (const entry of urls) {
        if (sending) await sending;
        position++;
        let line: string;
        try {
          line = typeof entry === "string"
            ? urlLine(entry, priority, dontFilter)
            : await pushedRequestLine(entry, defaults, options);
        } catch (error) {
          const reason = (error as Error).message;
          if (options.onBad === undefined) {
            throw new TypeError(`${typeof entry === "string" ? "URL" : "request"} ${position}: ${reason}`);
          }
          options.onBad({ position, reason });
          continue;
        }
        batch.add(line);
        if (++count === 1) sendLater();
        if (count === PUSH_BATCH) await send();
      }
      if (sending) await sending;
      if (count > 0) await send();
    } finally {
      clearTimeout(timer);
    }
    return result;
  }

  /**
   * Where the crawl stands, as `netweir queue status` prints it: waiting, held, processes, seen and queued. With
   * `live`, the crawl-wide stats too: the totals of the live processes (`crawl`) and each one's host, pid, last
   * heartbeat and totals (`live`), as of its last heartbeat.
   */
  async status(options: StatusOptions = {}): Promise<FrontierStatus> {
    return readStatus(await this.#script("nwStatus", [options.live ? "1" : "0"]) as unknown[]);
  }

  /**
   * Deletes every key of the crawl (its queue, duplicate filter, held requests and processes), so the next crawl
   * under this key starts from nothing. Returns how many keys were deleted. Other crawls' keys are left alone: no
   * crawl's prefix is the start of another's (see keyPrefix).
   */
  clear(): Promise<number> {
    const pattern = `${escapeGlob(this.#prefix)}:*`;
    return this.#use(async (connection) => {
      const redis = connection.client;
      // Processes still at work find their keys gone at their next call; this tells them it was a clear (each says
      // so in one line) rather than a Redis that lost data. It expires on its own, after an hour.
      const running = await redis.zcard(`${this.#prefix}:procs`);
      let deleted = 0;
      let cursor = "0";
      do {
        const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", CLEAR_BATCH);
        cursor = next;
        // COUNT is only a hint to SCAN, so the DELs are cut to size here.
        for (let i = 0; i < keys.length; i += CLEAR_BATCH) {
          deleted += await redis.del(...keys.slice(i, i + CLEAR_BATCH));
        }
      } while (cursor !== "0");
      if (running > 0) await redis.set(`${this.#prefix}:cleared`, "1", "EX", CLEARED_MARK_SECONDS);
      return deleted;
    });
  }

  /** Closes the connection. The queue cannot be used afterwards. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const connecting = this.#connecting;
    this.#connecting = undefined;
    const connection = await connecting?.catch(() => undefined);
    connection?.close();
  }

  /** Closes the queue at the end of an `await using` block. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** Lines of a push payload as UTF-8 bytes, newline-separated, in one growing buffer reused from batch to batch. */
class PayloadBuffer {
  #buffer = new Uint8Array(256 * 1024);
  #used = 0;
  readonly #encoder = new TextEncoder();

  add(line: string): void {
    // Three bytes per UTF-16 unit is the most UTF-8 can take, plus the newline.
    const needed = this.#used + line.length * 3 + 1;
    if (needed > this.#buffer.length) {
      const grown = new Uint8Array(Math.max(needed, this.#buffer.length * 2));
      grown.set(this.#buffer.subarray(0, this.#used));
      this.#buffer = grown;
    }
    if (this.#used > 0) this.#buffer[this.#used++] = 10; // "\n"
    this.#used += this.#encoder.encodeInto(line, this.#buffer.subarray(this.#used)).written;
  }

  bytes(): Uint8Array {
    return this.#buffer.subarray(0, this.#used);
  }

  clear(): void {
    this.#used = 0;
  }
}
