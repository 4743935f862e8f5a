/**
 * What a process's heartbeat reports for the crawl-wide stats (host, pid, totals), and how status reads it back,
 * reports written by hand or by an earlier version included. A real redis-server; the CLI's side is in
 * tests/distributed/crawl_stats_test.ts.
 */
import assert from "node:assert/strict";
import { hostname } from "node:os";
import { formatStatus } from "../../src/cli/queue.ts";
import { statusJson } from "../../src/cli/queue_stats.ts";
import { Queue } from "../../src/queue/queue.ts";
import { keyPrefix } from "../../src/queue/redis_frontier.ts";
import { startRedis } from "../helpers/redis.ts";
import { waitUntil } from "../helpers/wait.ts";
import { newKey, openFrontier } from "./_frontier.ts";

/** Redis's own time in ms, as the heartbeats record it. */
async function redisNow(redis: { command(...args: string[]): Promise<unknown> }): Promise<number> {
  const [seconds, micros] = (await redis.command("TIME")) as string[];
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

Deno.test("a process's heartbeat reports its host, pid and totals, and status adds them up", async () => {
  const redis = await startRedis();
  const key = newKey();
  const queue = new Queue(redis.url, key);
  // A lease of 0.3 s: a beat every 100 ms.
  const { frontier } = await openFrontier(redis.url, key, { leaseSeconds: 0.3 });
  try {
    const joined = await queue.status({ live: true });
    assert.deepEqual(joined.live?.map((one) => one.totals), [{ pages: 0, items: 0, errors: 0, pagesPerSecond: 0 }]);
    frontier.shareTotals(() => ({ pages: 7, items: 5, errors: 1 }));
    const status = await waitUntil("the next beat reports the totals", async () => {
      const now = await queue.status({ live: true });
      return now.crawl?.pages === 7 && now;
    });
    assert.deepEqual(status.crawl, { pages: 7, items: 5, errors: 1, pagesPerSecond: status.crawl?.pagesPerSecond });
    assert.ok(status.crawl!.pagesPerSecond > 0, "7 pages since the first beat, a moment ago");
    const [one] = status.live!;
    assert.equal(one.id, frontier.processId);
    assert.equal(one.host, hostname());
    assert.equal(one.pid, Deno.pid);
    assert.ok(one.heartbeatAgeSeconds < 0.3, `heard from within its lease: ${one.heartbeatAgeSeconds} s`);

    const text = formatStatus(status);
    assert.match(
      text,
      new RegExp(
        `^waiting: 0\nheld: 0\nprocesses: 1\nseen: 0\nqueued: 0\npages: 7\nitems: 5\nerrors: 1\n` +
          `pages/s: \\d+\\.\\d \\(last minute\\)\nprocess ${hostname()} pid ${Deno.pid}: pages 7, items 5, errors 1, ` +
          `\\d+\\.\\d pages/s, last heartbeat \\d\\.\\d s ago\n$`,
      ),
    );
    assert.deepEqual(JSON.parse(JSON.stringify(statusJson(status))).live[0].pages, 7);
  } finally {
    await frontier.close();
    await queue.close();
    await redis.stop();
  }
});

Deno.test("a process that reports nothing (an earlier version) or junk is listed without totals, not counted in them", async () => {
  const redis = await startRedis();
  const key = newKey();
  const prefix = keyPrefix(key);
  const queue = new Queue(redis.url, key);
  try {
    const now = await redisNow(redis);
    await redis.command("ZADD", `${prefix}:procs`, String(now - 1000), "old-host:aaaa", String(now), "junk-host:bbbb");
    await redis.command("HSET", `${prefix}:stats`, "junk-host:bbbb", "{not json");
    const status = await queue.status({ live: true });
    assert.equal(status.processes, 2);
    assert.deepEqual(status.live?.map(({ host, pid, totals }) => ({ host, pid, totals })), [
      { host: "old-host", pid: null, totals: null },
      { host: "junk-host", pid: null, totals: null },
    ]);
    assert.deepEqual(status.crawl, { pages: 0, items: 0, errors: 0, pagesPerSecond: 0 });
    assert.match(formatStatus(status), /\nprocess old-host pid -: no stats \(a process of an earlier version\), /);
    assert.deepEqual((statusJson(status).live as unknown[])[0], {
      id: "old-host:aaaa",
      host: "old-host",
      pid: null,
      last_heartbeat: new Date(now - 1000).toISOString(),
      heartbeat_age_seconds: status.live![0].heartbeatAgeSeconds,
      pages: null,
      items: null,
      errors: null,
      pages_per_second: null,
    });
    assert.ok(status.live![0].heartbeatAgeSeconds >= 1);
  } finally {
    await queue.close();
    await redis.stop();
  }
});

Deno.test("a stats key that is not a hash does not stop status, and the next heartbeat sets it aside", async () => {
  const redis = await startRedis();
  const key = newKey();
  const prefix = keyPrefix(key);
  const queue = new Queue(redis.url, key);
  await redis.command("SET", `${prefix}:stats`, "written by hand");
  const { frontier } = await openFrontier(redis.url, key, { leaseSeconds: 0.3 });
  try {
    frontier.shareTotals(() => ({ pages: 3, items: 2, errors: 0 }));
    assert.equal(await redis.command("GET", `${prefix}:bad:stats`), "written by hand");
    const status = await waitUntil("the beat reports the totals", async () => {
      const now = await queue.status({ live: true });
      return now.crawl?.pages === 3 && now;
    });
    assert.equal(status.live?.length, 1);
    // While the key is of another type, status answers with the process listed without totals.
    await redis.command("DEL", `${prefix}:stats`);
    await redis.command("RPUSH", `${prefix}:stats`, "junk");
    const meanwhile = await queue.status({ live: true });
    assert.equal(meanwhile.processes, 1);
  } finally {
    await frontier.close();
    await queue.close();
    await redis.stop();
  }
});
