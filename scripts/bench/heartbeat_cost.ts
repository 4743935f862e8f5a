/**
 * What a heartbeat costs the queue's Redis: one process's frontier on a fresh redis-server beats every 100 ms (a lease
 * of 0.3 s) for BEATS beats with nothing else to do, and the commands Redis ran (INFO commandstats, the script's own
 * steps included) and the bytes of the crawl's keys are printed per beat. A page's share is a beat's cost times the
 * beats a page waits: one beat every third of queue_lease (20 s by default) per process, whatever the rate. Prints
 * figures, asserts nothing.
 *
 *   deno run -A scripts/bench/heartbeat_cost.ts [BEATS=50]
 */
import { RedisConnection } from "../../src/queue/redis_client.ts";
import { keyPrefix, RedisFrontier } from "../../src/queue/redis_frontier.ts";
import { runtime } from "../../src/runtime/mod.ts";
import { parseRedisUrl } from "../../src/settings/redis_url.ts";
import { Spider } from "../../src/spider/spider.ts";
import { startRedis } from "../../tests/helpers/redis.ts";

/** A spider that is never crawled: the frontier only needs one to decode requests, and none is leased. */
class Idle extends Spider {}

const beats = Number(runtime.args()[0] ?? 50);
const quiet = { debug() {}, info() {}, warning() {}, error() {} };
const redis = await startRedis();
const connection = await RedisConnection.open(parseRedisUrl(redis.url), redis.url, 60_000);
try {
  const frontier = await RedisFrontier.open({
    url: redis.url,
    key: "cost",
    spider: new Idle(),
    log: quiet,
    leaseSeconds: 0.3,
    idleSeconds: null,
  });
  await connection.client.config("RESETSTAT");
  const started = Date.now();
  await new Promise((resolve) => setTimeout(resolve, beats * 100));
  const info = await connection.client.info("commandstats");
  const seconds = (Date.now() - started) / 1000;
  let evalsha = 0;
  let total = 0;
  const by: string[] = [];
  for (const match of info.matchAll(/^cmdstat_([\w|-]+):calls=(\d+)/gm)) {
    if (match[1] === "config|resetstat" || match[1] === "info") continue;
    const calls = Number(match[2]);
    total += calls;
    if (match[1] === "evalsha") evalsha = calls;
    by.push(`${match[1]} ${calls}`);
  }
  let bytes = 0;
  for (const key of await connection.client.keys(`${keyPrefix("cost")}:*`)) {
    bytes += Number(await connection.client.memory("USAGE", key));
  }
  await frontier.close();
  console.log(`${evalsha} heartbeats in ${seconds.toFixed(1)} s, ${runtime.name} ${runtime.version}`);
  console.log(`  commands ${(total / evalsha).toFixed(2)} a heartbeat, script steps included (${by.join(", ")})`);
  console.log(`  the crawl's keys with one process: ${bytes} bytes (MEMORY USAGE)`);
} finally {
  connection.close();
  await redis.stop();
}
