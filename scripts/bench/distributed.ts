/**
 * The shared Redis queue's figures, each against a fresh redis-server on a free port of 127.0.0.1. Prints them;
 * asserts nothing (the targets are in the issue and in docs/design/distributed.md):
 *
 * (a) Redis memory per request in the duplicate filter: N distinct URLs pushed as `netweir queue push` pushes them
 *     (a thousand per PUSH script call), the filter's keys measured with MEMORY USAGE, and the server's used_memory
 *     before and after (target: at most 80 bytes, aim 40), at 10,000, 100,000 and 1,000,000 requests;
 * (b) what a crawled page costs Redis, for examples/books.ts (about one link a page) and for LinkyBooks
 *     (scripts/bench/linky_spider.ts, about 25 links a page, most seen before): round trips, commands (INFO
 *     commandstats, the scripts' own steps included) and Redis CPU (INFO used_cpu_sys + used_cpu_user) around a
 *     one-process crawl of the generated shop (targets for LinkyBooks: at most 6 commands and 0.1 ms of CPU a page);
 * (c) crawl-wide pages/s of LinkyBooks with 1, 2 and 4 processes on one queue;
 * (d) junk: entries a second one process drops from a queue of 20,000 that are not requests (target: 20,000/s);
 * (e) one process with the Redis queue against the memory queue, same shop, same settings: pages/s of each and the
 *     ratio (target: at least 80%);
 * (f) one slow site beside a fast one (SlowAndFast of tests/distributed/fixtures), one process: when the fast site got its
 *     last request, with the memory queue and with the Redis queue (target: Redis within 1.25 times memory).
 *
 *   deno run -A scripts/bench/distributed.ts [REQUESTS=10000,100000,1000000] [BOOKS=3000] [ROUNDS=5]
 *
 * REQUESTS may be a comma-separated list (`10000,5000000`) to measure other sizes than the defaults.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue } from "../../src/queue/queue.ts";
import { RedisConnection } from "../../src/queue/redis_client.ts";
import { keyPrefix } from "../../src/queue/redis_frontier.ts";
import { parseRedisUrl } from "../../src/settings/redis_url.ts";
import { runtime } from "../../src/runtime/mod.ts";
import { RedisFrontier } from "../../src/queue/redis_frontier.ts";
import { Spider } from "../../src/spider/spider.ts";
import { REPO_ROOT, runCli, startCli } from "../../tests/helpers/cli.ts";
import { type RedisServer, startRedis } from "../../tests/helpers/redis.ts";
import { serveShop } from "./shop_server.ts";
import { startFixtureSite } from "../../tests/helpers/fixture_site.ts";
import { median } from "./median.ts";
import { measurePageCost, printPageCost } from "./redis_cost.ts";

const args = runtime.args();
const requestCounts = args[0] ? args[0].split(",").map(Number) : [10_000, 100_000, 1_000_000];
const books = Number(args[1] ?? 3000);
const rounds = Number(args[2] ?? 5);
const SETTINGS = ["-s", "profile=fast", "-s", "obey_robots_txt=false", "-s", "log_level=warning"];
const SPIDER = join(REPO_ROOT, "examples", "books.ts");
const LINKY = join(REPO_ROOT, "scripts", "bench", "linky_spider.ts");
const SLOW_AND_FAST = join(REPO_ROOT, "tests", "distributed", "fixtures", "spiders.ts");

const number = (value: number) => value.toLocaleString("en-US");

async function withRedis<T>(fn: (redis: RedisServer, connection: RedisConnection) => Promise<T>): Promise<T> {
  const redis = await startRedis();
  const connection = await RedisConnection.open(parseRedisUrl(redis.url), redis.url, 60_000);
  try {
    return await fn(redis, connection);
  } finally {
    connection.close();
    await redis.stop();
  }
}

/**
 * The server's used_memory, read once the connection has been idle long enough for Redis to shrink its query buffer
 * (a PUSH of a thousand requests leaves one of a few hundred KB behind), so that it does not count as the filter's.
 */
async function usedMemory(connection: RedisConnection): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 2500));
  return Number(/used_memory:(\d+)/.exec(await connection.client.info("memory"))![1]);
}

/**
 * Walks the keys matching `pattern` with SCAN, a batch at a time (a filter of 20 million requests has 17 million
 * keys: too many to hold), summing their MEMORY USAGE and counting them by level, then deletes the batch.
 */
async function measureAndDelete(
  connection: RedisConnection,
  pattern: string,
): Promise<{ usage: number; levels: Map<string, number> }> {
  const levels = new Map<string, number>();
  let usage = 0;
  let cursor = "0";
  do {
    const [next, keys] = await connection.client.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    cursor = next;
    if (keys.length === 0) continue;
    const pipeline = connection.client.pipeline();
    for (const key of keys) pipeline.memory("USAGE", key, "SAMPLES", "0");
    for (const [error, bytes] of (await pipeline.exec())!) {
      if (error) throw error;
      usage += Number(bytes);
    }
    for (const key of keys) {
      const level = key.split(":").at(-2)!;
      levels.set(level, (levels.get(level) ?? 0) + 1);
    }
    // Deleting keys SCAN has returned does not make it miss the others.
    await connection.client.del(...keys);
  } while (cursor !== "0");
  return { usage, levels };
}

/** `count` distinct URLs, made as they are asked for. */
function* urls(count: number): Generator<string> {
  for (let i = 0; i < count; i++) yield `https://shop.example/catalogue/item-${i}.html`;
}

/** (a) Pushes `count` distinct requests with `Queue.push` (what `netweir queue push` runs) and measures the filter. */
async function filterMemory(count: number): Promise<void> {
  await withRedis(async (redis, connection) => {
    // One URL pushed under another key and cleared again: the server has the scripts cached before measuring.
    await using warm = new Queue(redis.url, "warm-up");
    await warm.push(urls(1));
    await warm.clear();
    const prefix = keyPrefix("bench");
    const before = await usedMemory(connection);
    const started = Date.now();
    await using queue = new Queue(redis.url, "bench");
    await queue.push(urls(count));
    const seconds = (Date.now() - started) / 1000;
    // Only the filter is measured: the queue's own lists go.
    for (const pattern of [`${prefix}:q:*`, `${prefix}:hosts:*`]) {
      for (const key of await connection.client.keys(pattern)) await connection.client.del(key);
    }
    await connection.client.del(`${prefix}:prios`);
    const after = await usedMemory(connection);
    const seen = Number(await connection.client.hget(`${prefix}:meta`, "seen"));
    // DEL frees at once, so what deleting the filter's keys gives back is what they took.
    const { usage, levels } = await measureAndDelete(connection, `${prefix}:seen:*`);
    const freed = after - await usedMemory(connection);
    const buckets = [...levels.values()].reduce((a, b) => a + b, 0);
    const perLevel = [...levels].sort().map(([level, n]) => `level ${level}: ${number(n)}`).join(", ");
    console.log(
      `  ${number(count).padStart(11)} requests (filter says ${number(seen)}), ${number(buckets)} buckets ` +
        `(${perLevel}), pushed at ${number(Math.round(count / seconds))}/s`,
    );
    console.log(
      `  ${"".padStart(11)} MEMORY USAGE ${(usage / count).toFixed(1)} B/request, ` +
        `used_memory grew ${((after - before) / count).toFixed(1)} B/request, ` +
        `deleting the filter freed ${(freed / count).toFixed(1)} B/request`,
    );
  });
}

/** The arguments of a crawl of the shop: books.ts unless `spider` is LINKY (with the shop's size). */
function crawlArgs(shop: string, spider: string, statsFile: string, extra: string[]): string[] {
  const linky = spider === LINKY ? ["--spider", "LinkyBooks", "-a", `books=${books}`] : [];
  return ["crawl", spider, ...linky, "-a", `site=${shop}`, "--stats-file", statsFile, ...SETTINGS, ...extra];
}

/** Runs one crawl of the shop with the CLI and returns its stats. */
async function crawl(shop: string, extra: string[], spider = SPIDER): Promise<Record<string, number>> {
  const dir = await mkdtemp(join(tmpdir(), "netweir-bench-"));
  try {
    const statsFile = join(dir, "stats.json");
    const ran = await runCli(crawlArgs(shop, spider, statsFile, extra), { timeoutMs: 600_000 });
    if (ran.code !== 0) throw new Error(`crawl failed (${ran.code}): ${ran.stderr}`);
    return JSON.parse(await readFile(statsFile, "utf8"));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The settings that make a crawl use the Redis queue, ending as soon as it is idle. */
const queued = (redis: RedisServer, key: string) => ["--queue", redis.url, "--queue-key", key, "-s", "queue_idle=0"];

/** (b) Round trips, commands and Redis CPU per page, for one spider. */
async function costPerPage(shop: string, spider: string, label: string): Promise<void> {
  const linky = spider === LINKY ? ["--spider", "LinkyBooks", "-a", `books=${books}`] : [];
  printPageCost(label, await measurePageCost(["crawl", spider, ...linky, "-a", `site=${shop}`, ...SETTINGS]));
}

/** (c) Crawl-wide pages/s of `processes` processes of LinkyBooks started together on one fresh queue. */
async function crawlWide(shop: string, processes: number): Promise<number> {
  return await withRedis(async (redis) => {
    const dir = await mkdtemp(join(tmpdir(), "netweir-bench-"));
    try {
      const started = Date.now();
      // queue_idle=2: a process that starts a little after the first must not end before work reaches it.
      const running = Array.from(
        { length: processes },
        (_, i) =>
          startCli(
            crawlArgs(shop, LINKY, join(dir, `stats-${i}.json`), [
              "--queue",
              redis.url,
              "-s",
              "queue_idle=2",
            ]),
            { timeoutMs: 600_000 },
          ),
      );
      let pages = 0;
      let lastWork = started;
      for (const [i, process] of running.entries()) {
        const ran = await process.wait();
        if (ran.code !== 0) throw new Error(`crawl failed (${ran.code}): ${ran.stderr}`);
        const stats = JSON.parse(await readFile(join(dir, `stats-${i}.json`), "utf8"));
        pages += stats.pages;
        // The idle wait at the end is not crawling: each process's finish time less the 2 s it waited.
        lastWork = Math.max(lastWork, Date.parse(stats.finish_time) - 2000);
      }
      return pages / ((lastWork - started) / 1000);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}

/** (d) How fast one process gets through junk: 20,000 entries that are not requests, then one that is. */
async function junk(): Promise<void> {
  class Plain extends Spider {}
  await withRedis(async (redis, connection) => {
    const quiet = { debug() {}, info() {}, warning() {}, error() {} };
    const frontier = await RedisFrontier.open({
      url: redis.url,
      key: "junk",
      spider: new Plain(),
      log: quiet,
      leaseSeconds: 60,
      idleSeconds: 0,
    });
    try {
      const prefix = keyPrefix("junk");
      const list = `${prefix}:q:0:127.0.0.1`;
      for (let i = 0; i < 20_000; i += 1000) {
        await connection.client.rpush(list, ...Array.from({ length: 1000 }, (_, k) => `junk ${i + k}`));
      }
      await connection.client.rpush(`${prefix}:hosts:0`, "127.0.0.1");
      await connection.client.zadd(`${prefix}:prios`, 0, "0");
      await connection.client.rpush(list, JSON.stringify({ v: 1, url: "http://127.0.0.1:9/good" }));
      const started = performance.now();
      let leases = 0;
      while (leases === 0) leases = (await frontier.lease(16)).length;
      const seconds = (performance.now() - started) / 1000;
      console.log(
        `  ${number(frontier.stats().queue_bad)} junk entries dropped in ${seconds.toFixed(2)} s at concurrency 16: ` +
          `${number(Math.round(20_000 / seconds))}/s`,
      );
    } finally {
      await frontier.close();
    }
  });
}

/** (e) Pages per second with the memory queue and with the Redis queue, alternating, `rounds` times each. */
async function speed(shop: string): Promise<void> {
  await withRedis(async (redis) => {
    const memory: number[] = [];
    const shared: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const mem = await crawl(shop, []);
      memory.push(mem.pages / mem.elapsed_seconds);
      const red = await crawl(shop, queued(redis, `speed-${round}`));
      shared.push(red.pages / red.elapsed_seconds);
    }
    const list = (values: number[]) => values.map((v) => v.toFixed(0)).join(", ");
    console.log(`  memory queue median ${median(memory).toFixed(0)} pages/s  (${list(memory)})`);
    console.log(`  Redis queue  median ${median(shared).toFixed(0)} pages/s  (${list(shared)})`);
    console.log(`  Redis / memory: ${(median(shared) / median(memory) * 100).toFixed(0)}%`);
  });
}

/** (f) Seconds until the fast site of SlowAndFast got its last request, with `queue` arguments (none: memory). */
async function fastSiteDone(queue: (redis: RedisServer) => string[]): Promise<{ seconds: number; pages: number }> {
  const fast = await startFixtureSite({ books: books });
  const slow = await startFixtureSite({ hostname: "127.0.0.2" });
  try {
    return await withRedis(async (redis) => {
      const dir = await mkdtemp(join(tmpdir(), "netweir-bench-"));
      try {
        const started = Date.now();
        const ran = await runCli([
          "crawl",
          SLOW_AND_FAST,
          "--spider",
          "SlowAndFast",
          "-a",
          "slowPages=400",
          "-a",
          "slowMs=500",
          "-a",
          `site=${fast.url}`,
          "-a",
          `slow=${slow.url}`,
          "-o",
          join(dir, "items.jsonl"),
          "-s",
          "obey_robots_txt=false",
          "-s",
          "log_level=warning",
          ...queue(redis),
        ], { timeoutMs: 600_000 });
        if (ran.code !== 0) throw new Error(`crawl failed (${ran.code}): ${ran.stderr}`);
        const fastRequests = fast.requests.filter((request) => request.path.startsWith("/shop/"));
        return { seconds: (fastRequests.at(-1)!.at - started) / 1000, pages: fastRequests.length };
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  } finally {
    await fast.close();
    await slow.close();
  }
}

const redisVersion = await withRedis(async (_redis, connection) =>
  /redis_version:(\S+)/.exec(await connection.client.info("server"))![1]
);
console.log(`redis-server ${redisVersion}, ${runtime.name} ${runtime.version}`);
console.log("(a) duplicate filter memory per request");
for (const count of requestCounts) await filterMemory(count);

const shop = await serveShop(books);
try {
  const pages = books + Math.ceil(books / 20);
  console.log(`shop of ${number(books)} books (${number(pages)} pages), settings: ${SETTINGS.join(" ")}`);
  console.log("(b) what a page costs Redis, one process");
  await costPerPage(shop.url, SPIDER, "books.ts");
  await costPerPage(shop.url, LINKY, "LinkyBooks (about 25 links a page)");
  console.log("(c) crawl-wide pages/s, LinkyBooks, processes on one queue (one machine: they share its two cores)");
  for (const processes of [1, 2, 4]) {
    console.log(
      `  ${processes} process${processes === 1 ? "" : "es"}: ${
        (await crawlWide(shop.url, processes)).toFixed(0)
      } pages/s`,
    );
  }
  console.log("(d) junk in the queue");
  await junk();
  console.log(`(e) one process, Redis queue vs memory queue, ${rounds} rounds each`);
  await speed(shop.url);
  console.log("(f) a site answering in 0.5 s (400 pages, queued first) beside the fast shop, one process, defaults");
  const memory = await fastSiteDone(() => []);
  const shared = await fastSiteDone((redis) => ["--queue", redis.url, "-s", "queue_idle=0"]);
  console.log(`  memory queue: fast site's ${number(memory.pages)} pages done after ${memory.seconds.toFixed(1)} s`);
  console.log(`  Redis queue:  fast site's ${number(shared.pages)} pages done after ${shared.seconds.toFixed(1)} s`);
  console.log(`  Redis / memory: ${(shared.seconds / memory.seconds).toFixed(2)} times`);
} finally {
  await shop.close();
}
