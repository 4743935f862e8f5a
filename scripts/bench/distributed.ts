/**
 * The shared Redis queue's figures, each against a fresh redis-server on a free port of 127.0.0.1. Prints them;
 * asserts nothing (the targets are in the issue and in docs/design/distributed.md):
 *
 * (a) Redis memory per request in the duplicate filter: N distinct URLs pushed as `netweir queue push` pushes them
 *     (a thousand per PUSH script call), the filter's keys measured with MEMORY USAGE, and the server's used_memory
 *     before and after (target: at most 80 bytes, aim 40), at 10,000, 100,000 and 1,000,000 requests;
 * (b) Redis round trips per crawled page: INFO commandstats around a one-process crawl of the generated shop with
 *     --queue (target: at most 3);
 * (c) one process with the Redis queue against the memory queue, same shop, same settings: pages/s of each and the
 *     ratio (target: at least 80%).
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
import { SCRIPTS } from "../../src/queue/redis_scripts.ts";
import { parseRedisUrl } from "../../src/queue/redis_url.ts";
import { runtime } from "../../src/runtime/mod.ts";
import { REPO_ROOT, runCli } from "../../tests/helpers/cli.ts";
import { type RedisServer, startRedis } from "../../tests/helpers/redis.ts";
import { serveShop } from "./shop_server.ts";

const args = runtime.args();
const requestCounts = args[0] ? args[0].split(",").map(Number) : [10_000, 100_000, 1_000_000];
const books = Number(args[1] ?? 3000);
const rounds = Number(args[2] ?? 5);
const SETTINGS = ["-s", "profile=fast", "-s", "obey_robots_txt=false", "-s", "log_level=warning"];
const SPIDER = join(REPO_ROOT, "examples", "books.ts");

const number = (value: number) => value.toLocaleString("en-US");
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

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
    for (const key of await connection.client.keys(`${prefix}:q:*`)) await connection.client.del(key);
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

/** The commands the queue's scripts run inside Redis: counted by commandstats, but not round trips. */
function commandsInsideScripts(): Set<string> {
  const names = new Set<string>();
  for (const lua of Object.values(SCRIPTS)) {
    // redis.call('X', ...), redis.pcall('X', ...) and pcall(redis.call, 'X', ...)
    for (const match of lua.matchAll(/redis\.p?call\(?,?\s*'(\w+)'/g)) names.add(match[1].toLowerCase());
  }
  return names;
}

/** Calls per command from INFO commandstats. */
function commandCalls(info: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_([\w|-]+):calls=(\d+)/gm)) calls.set(match[1], Number(match[2]));
  return calls;
}

/** Runs one crawl of the shop with the CLI and returns its stats. */
async function crawl(shop: string, extra: string[]): Promise<Record<string, number>> {
  const dir = await mkdtemp(join(tmpdir(), "netweir-bench-"));
  try {
    const statsFile = join(dir, "stats.json");
    const ran = await runCli(
      ["crawl", SPIDER, "-a", `site=${shop}`, "--stats-file", statsFile, ...SETTINGS, ...extra],
      { timeoutMs: 600_000 },
    );
    if (ran.code !== 0) throw new Error(`crawl failed (${ran.code}): ${ran.stderr}`);
    return JSON.parse(await readFile(statsFile, "utf8"));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The settings that make a crawl use the Redis queue, ending as soon as it is idle. */
const queued = (redis: RedisServer, key: string) => ["--queue", redis.url, "--queue-key", key, "-s", "queue_idle=0"];

/** (b) Round trips per page, and commands run inside Redis per page. */
async function roundTrips(shop: string): Promise<void> {
  await withRedis(async (redis, connection) => {
    await connection.client.config("RESETSTAT");
    const stats = await crawl(shop, queued(redis, "trips"));
    const calls = commandCalls(await connection.client.info("commandstats"));
    calls.delete("config|resetstat");
    const inside = commandsInsideScripts();
    let trips = 0;
    let total = 0;
    const tripsBy: string[] = [];
    for (const [name, n] of calls) {
      total += n;
      if (inside.has(name)) continue;
      trips += n;
      tripsBy.push(`${name} ${number(n)}`);
    }
    console.log(`  ${number(stats.pages)} pages, ${number(stats.leased)} leased, ${number(stats.pushed)} pushed`);
    console.log(
      `  round trips: ${number(trips)} (${tripsBy.join(", ")}) = ${(trips / stats.pages).toFixed(2)} per page`,
    );
    console.log(
      `  commands run by Redis, script steps included: ${number(total)} = ${(total / stats.pages).toFixed(1)} per page`,
    );
  });
}

/** (c) Pages per second with the memory queue and with the Redis queue, alternating, `rounds` times each. */
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
  console.log("(b) Redis round trips per crawled page, one process");
  await roundTrips(shop.url);
  console.log(`(c) one process, Redis queue vs memory queue, ${rounds} rounds each`);
  await speed(shop.url);
} finally {
  await shop.close();
}
