/**
 * What a crawled page costs the queue's Redis, measured around one crawl of the `netweir` command on a fresh
 * redis-server: round trips (the scripts called), commands (INFO commandstats, each script's own steps included) and
 * Redis CPU (INFO used_cpu_sys + used_cpu_user), each divided by the pages the crawl fetched. Used by
 * scripts/bench/distributed.ts (b) and scripts/bench/queue_cost.ts.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RedisConnection } from "../../src/queue/redis_client.ts";
import { SCRIPTS } from "../../src/queue/redis_scripts.ts";
import { ADD_ITEMS } from "../../src/output/redis_stream_feed.ts";
import { parseRedisUrl } from "../../src/settings/redis_url.ts";
import { runCli } from "../../tests/helpers/cli.ts";
import { startRedis } from "../../tests/helpers/redis.ts";

/** What one crawl cost Redis, a page. */
export interface PageCost {
  pages: number;
  pushed: number;
  leased: number;
  /** Script calls (EVALSHA, EVAL) and other commands sent, a page. */
  roundTrips: number;
  /** Every command Redis ran, the scripts' own steps included, a page. */
  commands: number;
  /** Redis's CPU, in milliseconds a page. */
  cpuMs: number;
  /** Round trips by command, in all. */
  tripsBy: string[];
  /** The six commands run most inside the scripts, a page. */
  top: string[];
}

/** The commands the queue's scripts run inside Redis: counted by commandstats, but not round trips. */
function commandsInsideScripts(): Set<string> {
  const names = new Set<string>();
  for (const lua of [...Object.values(SCRIPTS), ADD_ITEMS]) {
    // redis.call('X', ...), redis.pcall('X', ...), pcall(redis.call, 'X', ...) and write_to('X', ...)
    for (const match of lua.matchAll(/(?:redis\.p?call\(?,?\s*|write_to\()'(\w+)'/g)) {
      names.add(match[1].toLowerCase());
    }
  }
  return names;
}

/** Calls per command from INFO commandstats. */
function commandCalls(info: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_([\w|-]+):calls=(\d+)/gm)) calls.set(match[1], Number(match[2]));
  return calls;
}

/** Redis's own CPU seconds so far (user and system, its main thread and the rest). */
async function redisCpu(connection: RedisConnection): Promise<number> {
  const info = await connection.client.info("cpu");
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(info)?.[1] ?? 0);
  return field("used_cpu_sys") + field("used_cpu_user");
}

/**
 * Runs `netweir` with `args` (a crawl, without its queue) on a fresh Redis queue that ends as soon as it is idle, and
 * measures what it cost Redis. `args` may be a function of the Redis URL, for output to the same server.
 */
export async function measurePageCost(args: string[] | ((redisUrl: string) => string[])): Promise<PageCost> {
  const redis = await startRedis();
  const connection = await RedisConnection.open(parseRedisUrl(redis.url), redis.url, 60_000);
  const dir = await mkdtemp(join(tmpdir(), "netweir-bench-"));
  try {
    await connection.client.config("RESETSTAT");
    const cpuBefore = await redisCpu(connection);
    const statsFile = join(dir, "stats.json");
    const queue = ["--queue", redis.url, "--queue-key", "cost", "-s", "queue_idle=0", "--stats-file", statsFile];
    const crawl = typeof args === "function" ? args(redis.url) : args;
    const ran = await runCli([...crawl, ...queue], { timeoutMs: 600_000 });
    if (ran.code !== 0) throw new Error(`crawl failed (${ran.code}): ${ran.stderr}`);
    const stats = JSON.parse(await readFile(statsFile, "utf8"));
    const cpu = await redisCpu(connection) - cpuBefore;
    const calls = commandCalls(await connection.client.info("commandstats"));
    calls.delete("config|resetstat");
    calls.delete("info");
    const inside = commandsInsideScripts();
    let trips = 0;
    let total = 0;
    const tripsBy: string[] = [];
    const insideBy: Array<[string, number]> = [];
    for (const [name, n] of calls) {
      total += n;
      if (inside.has(name)) {
        insideBy.push([name, n]);
        continue;
      }
      trips += n;
      tripsBy.push(`${name} ${n.toLocaleString("en-US")}`);
    }
    const perPage = (n: number) => n / stats.pages;
    return {
      pages: stats.pages,
      pushed: stats.pushed,
      leased: stats.leased,
      roundTrips: perPage(trips),
      commands: perPage(total),
      cpuMs: cpu * 1000 / stats.pages,
      tripsBy,
      top: insideBy.sort((x, y) => y[1] - x[1]).slice(0, 6).map(([name, n]) => `${name} ${perPage(n).toFixed(2)}`),
    };
  } finally {
    connection.close();
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Prints a PageCost in the lines docs/design/distributed.md quotes. */
export function printPageCost(label: string, cost: PageCost): void {
  const number = (value: number) => value.toLocaleString("en-US");
  console.log(`  ${label}: ${number(cost.pages)} pages, ${number(cost.pushed)} pushed, ${number(cost.leased)} leased`);
  console.log(`    round trips ${cost.roundTrips.toFixed(2)} a page (${cost.tripsBy.join(", ")})`);
  console.log(`    commands ${cost.commands.toFixed(2)} a page, script steps included (most: ${cost.top.join(", ")})`);
  console.log(`    Redis CPU ${cost.cpuMs.toFixed(3)} ms a page`);
}
