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
import { ManualClock } from "../helpers/manual_clock.ts";
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
  // The beats come when the test moves the process's clock (a third of its 60 s lease), not on a timer: with a short
  // real lease (0.3 s, as this test had) a loaded machine could delay a beat past it, and status would leave the
  // process out as silent.
  const clock = new ManualClock();
  const { frontier } = await openFrontier(redis.url, key, { leaseSeconds: 60, clock });
  try {
    const joined = await queue.status({ live: true });
    assert.deepEqual(joined.live?.map((one) => one.totals), [{ pages: 0, items: 0, errors: 0, pagesPerSecond: 0 }]);
    frontier.shareTotals(() => ({ pages: 7, items: 5, errors: 1 }));
    await clock.advance(20_000);
    const status = await waitUntil("the next beat reports the totals", async () => {
      const now = await queue.status({ live: true });
      return now.crawl?.pages === 7 && now;
    });
    // 7 pages in the 20 s (of the process's clock) since its first beat.
    assert.deepEqual(status.crawl, { pages: 7, items: 5, errors: 1, pagesPerSecond: 0.35 });
    const [one] = status.live!;
    assert.equal(one.id, frontier.processId);
    assert.equal(one.host, hostname());
    assert.equal(one.pid, Deno.pid);
    assert.ok(one.heartbeatAgeSeconds <= 60, `heard from within its lease: ${one.heartbeatAgeSeconds} s`);

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
  // Beats only when the test moves the clock: none can come between the junk written below and the status read
  // while it is there (with a real 0.3 s lease one could, and set the junk aside first, or write a hash between a
  // DEL and an RPUSH so that the RPUSH failed).
  const clock = new ManualClock();
  const { frontier } = await openFrontier(redis.url, key, { leaseSeconds: 60, clock });
  try {
    frontier.shareTotals(() => ({ pages: 3, items: 2, errors: 0 }));
    assert.equal(await redis.command("GET", `${prefix}:bad:stats`), "written by hand");
    await clock.advance(20_000);
    const status = await waitUntil("the beat reports the totals", async () => {
      const now = await queue.status({ live: true });
      return now.crawl?.pages === 3 && now;
    });
    assert.equal(status.live?.length, 1);
    // While the key is of another type, status answers with the process listed without totals.
    await redis.command(
      "EVAL",
      "redis.call('DEL', KEYS[1]) return redis.call('RPUSH', KEYS[1], 'junk')",
      1,
      `${prefix}:stats`,
    );
    const meanwhile = await queue.status({ live: true });
    assert.equal(meanwhile.processes, 1);
    assert.deepEqual(meanwhile.live?.map((one) => one.totals), [null]);
    // The next beat sets it aside in turn.
    await clock.advance(20_000);
    await waitUntil(
      "the beat sets the list aside",
      async () => await redis.command("TYPE", `${prefix}:bad:stats`) === "list",
    );
    const after = await waitUntil("the beat reports the totals again", async () => {
      const now = await queue.status({ live: true });
      return now.crawl?.pages === 3 && now;
    });
    assert.equal(after.processes, 1);
  } finally {
    await frontier.close();
    await queue.close();
    await redis.stop();
  }
});
