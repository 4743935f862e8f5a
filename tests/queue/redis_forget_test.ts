/**
 * What a process remembers as queued never stands in for what Redis says: a process taken for dead and resumed, a
 * Redis restarted from older data, and a crawl cleared under a running process, each against a real redis-server.
 * Each time the process forgets the links it knew were queued, and the pages it held go back to be fetched again.
 */
import assert from "node:assert/strict";
import { cp, rm } from "node:fs/promises";
import { join } from "node:path";
import { Queue } from "../../src/queue/queue.ts";
import type { Lease } from "../../src/queue/frontier.ts";
import type { RedisFrontier } from "../../src/queue/redis_frontier.ts";
import { Request } from "../../src/spider/request.ts";
import { ManualClock } from "../helpers/manual_clock.ts";
import { type RedisServer, startRedis } from "../helpers/redis.ts";
import { sleep } from "../helpers/wait.ts";
import { newKey, openFrontier } from "./_frontier.ts";

const url = (n: number | string) => `http://127.0.0.1:9/page/${n}`;

/**
 * A process that goes silent: its clock never moves, so it sends no heartbeat, as if stopped with SIGSTOP. Its own
 * lease is long: each of its calls may take a third of it before it counts as failed, and a failed call waits on its
 * clock before it is tried again, which this clock never lets happen (with a 1 s lease, a call slower than 334 ms on
 * a loaded machine hung the test for good). What takes it for dead is the other process's shorter lease below.
 */
function openSilent(redisUrl: string, key: string) {
  return openFrontier(redisUrl, key, { leaseSeconds: 60, clock: new ManualClock() });
}

/** The lease of the process that joins after the silent one: its first heartbeat takes back what that one held. */
const JOINING_LEASE = 2;

/** Long enough for the silent process to be taken for dead by one with JOINING_LEASE. */
const SILENCE_MS = JOINING_LEASE * 1000 + 300;

/** Leases until one of `want` comes, for up to `ms`: the pages given back reach the queue a heartbeat later. */
async function leaseUntil(frontier: RedisFrontier, want: string, ms: number): Promise<Lease | undefined> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const leases = await frontier.lease(10);
    const found = leases.find((lease) => lease.request.url === want);
    const others = leases.filter((lease) => lease !== found);
    if (others.length > 0) await frontier.giveBack(others);
    if (found) return found;
    await sleep(100);
  }
  return undefined;
}

Deno.test("a process taken for dead and resumed queues the links of its own request when it leases it again", async () => {
  const redis = await startRedis();
  const key = newKey();
  // Its clock never moves: no heartbeat goes, as in a process stopped with SIGSTOP.
  const { frontier: stopped, log } = await openSilent(redis.url, key);
  try {
    await stopped.push([new Request({ url: url("chain-1") })]);
    const [first] = await stopped.lease(1);
    assert.equal(first.request.url, url("chain-1"));
    // Silent for longer than the lease of the next process to beat, which takes its request back, and leaves.
    await sleep(SILENCE_MS);
    const { frontier: other } = await openFrontier(redis.url, key, { leaseSeconds: JOINING_LEASE });
    assert.equal(other.stats().leases_reclaimed, 1);
    await other.close();

    // Resumed: the page it was on finishes (its lease is gone), and it takes the same request again.
    await stopped.finish(first, [new Request({ url: url("chain-2") })]);
    const again = await leaseUntil(stopped, url("chain-1"), 3000);
    assert.ok(again, "the request taken back is leased again");
    await stopped.finish(again, [new Request({ url: url("chain-2") })]);
    const next = await stopped.lease(1);
    assert.deepEqual(next.map((lease) => lease.request.url), [url("chain-2")], "the chain goes on");
    const said = log.lines.filter((line) => /taken for dead/.test(line));
    assert.equal(said.length, 1, log.lines.join("\n"));
  } finally {
    await stopped.close();
    await redis.stop();
  }
});

/** The server's data directory, and a copy of its append-only files as they are now. */
async function copyAppendOnly(redis: RedisServer, to: string): Promise<string> {
  const [, dir] = await redis.command("CONFIG", "GET", "dir") as string[];
  await cp(join(dir, "appendonlydir"), to, { recursive: true });
  return dir;
}

Deno.test("a process whose Redis comes back from older data fetches again the page whose links Redis lost", async () => {
  const redis = await startRedis({ appendonly: true });
  const key = newKey();
  const copy = await Deno.makeTempDir({ prefix: "netweir-aof-" });
  const { frontier, log } = await openFrontier(redis.url, key, { leaseSeconds: 3 });
  try {
    await frontier.push([new Request({ url: url("start") })]);
    const [start] = await frontier.lease(1);
    // The data as it is now: the start page held by this process, its links not yet queued.
    const dir = await copyAppendOnly(redis, join(copy, "appendonlydir"));
    const links = [1, 2, 3].map((n) => new Request({ url: url(`link-${n}`) }));
    await frontier.finish(start, links);
    // Redis dies, and comes back from the older copy: the finish, and the links, are gone.
    await redis.kill("SIGKILL");
    await rm(join(dir, "appendonlydir"), { recursive: true });
    await cp(join(copy, "appendonlydir"), join(dir, "appendonlydir"), { recursive: true });
    await redis.restart();

    const again = await leaseUntil(frontier, url("start"), 5000);
    assert.ok(again, "the start page, held again in the older data, comes back to be fetched");
    await frontier.finish(again, links);
    const next = await frontier.lease(10);
    assert.deepEqual(next.map((lease) => lease.request.url).sort(), links.map((link) => link.url));
    assert.ok(log.lines.some((line) => /Redis has lost changes this process made/.test(line)), log.lines.join("\n"));
  } finally {
    await frontier.close();
    await redis.stop();
    await rm(copy, { recursive: true, force: true });
  }
});

Deno.test("a process at work when its crawl is cleared says so in one line", async () => {
  const redis = await startRedis();
  const key = newKey();
  const { frontier, log } = await openFrontier(redis.url, key);
  try {
    await frontier.push([new Request({ url: url("start") })]);
    const [start] = await frontier.lease(1);
    await using queue = new Queue(redis.url, key);
    assert.ok(await queue.clear() > 0);
    await frontier.finish(start, [new Request({ url: url("next") })]);
    await frontier.lease(1);
    const said = log.lines.filter((line) =>
      /keys were deleted while this process ran \(netweir queue clear\)/.test(line)
    );
    assert.equal(said.length, 1, log.lines.join("\n"));
  } finally {
    await frontier.close();
    await redis.stop();
  }
});

Deno.test("a finish tried again after Redis came back sends the page's links again, though they were sent once", async () => {
  const redis = await startRedis({ appendonly: true });
  const key = newKey();
  const { frontier } = await openFrontier(redis.url, key, { leaseSeconds: 6 });
  try {
    await frontier.push([new Request({ url: url("start") })]);
    const [start] = await frontier.lease(1);
    // Redis is gone when the finish is first sent: that try fails without running, and the next one, once Redis is
    // back with all its data, must carry the links the first one carried.
    await redis.kill("SIGKILL");
    const finishing = frontier.finish(start, [new Request({ url: url("next") })]);
    await sleep(300);
    await redis.restart();
    await finishing;
    const next = await frontier.lease(10);
    assert.deepEqual(next.map((lease) => lease.request.url), [url("next")]);
  } finally {
    await frontier.close();
    await redis.stop();
  }
});

Deno.test("a page held when the process forgot, finished with links, has the crawl forget the links it noted since", async () => {
  const redis = await startRedis();
  const key = newKey();
  const { frontier: stopped } = await openSilent(redis.url, key);
  let forgot = 0;
  stopped.onForget(() => forgot++);
  try {
    await stopped.push([new Request({ url: url("a") }), new Request({ url: url("b") })]);
    const [a, b] = await stopped.lease(2);
    await sleep(SILENCE_MS);
    const { frontier: other } = await openFrontier(redis.url, key, { leaseSeconds: JOINING_LEASE });
    await other.close();
    // The first call after it was taken for dead finds out: the crawl forgets what it had noted.
    await stopped.finish(a, []);
    assert.equal(forgot, 1);
    // b's callback ran after that, and the crawl noted its link as queued: b goes back, and the crawl forgets again.
    await stopped.finish(b, [new Request({ url: url("b-link") })]);
    assert.equal(forgot, 2);
  } finally {
    await stopped.close();
    await redis.stop();
  }
});
