/**
 * A Redis that goes away for longer than a lease: stopped (the connection breaks) or paused with SIGSTOP (the
 * connection stays open and nothing answers). Either way every process stops with a QueueError once a lease has
 * passed since its last heartbeat got through: by then the others may have taken back what it held.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import type { RunResult } from "../helpers/cli.ts";
import { type RedisServer, startRedis } from "../helpers/redis.ts";
import { type Crawler, readItems, startCrawler, waitUntil } from "./_crawl.ts";

const LEASE = 3;
/**
 * How long after Redis went away the processes must all have stopped: the lease, plus a wide margin for a slow
 * machine. A process that kept retrying for ever would miss it; this is a guard against that, not a measurement.
 */
const GIVE_UP_WITHIN_MS = (LEASE + 12) * 1000;

/** Starts three crawl processes on a slow pace and waits until each has written items. */
async function threeCrawling(dir: string, redis: RedisServer, siteUrl: Parameters<typeof startCrawler>[0]["site"]) {
  const crawlers = ["a", "b", "c"].map((name) =>
    startCrawler({
      dir,
      name,
      site: siteUrl,
      queue: redis.url,
      settings: [`queue_lease=${LEASE}`, "min_delay=0.1", "autothrottle=false", "per_domain=1"],
    })
  );
  for (const crawler of crawlers) {
    await waitUntil(`${crawler.name} has written items`, async () => (await readItems(crawler.items)).length >= 3);
  }
  return crawlers;
}

/** Waits for every process to exit, failing if one is still running `withinMs` after now. */
async function allExit(crawlers: Crawler[], withinMs: number): Promise<RunResult[]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`a process was still running ${withinMs} ms after Redis went away`)),
      withinMs,
    );
  });
  try {
    return await Promise.race([Promise.all(crawlers.map((crawler) => crawler.process.wait())), guard]);
  } finally {
    clearTimeout(timer);
  }
}

function assertQueueLost(results: RunResult[]): void {
  for (const result of results) {
    assert.equal(result.code, 1, result.stderr);
    const last = result.stderr.trimEnd().split("\n").pop()!;
    assert.match(last, /^netweir: (lost the queue: no heartbeat got through for 3 s|the queue kept failing for 3 s)/);
    assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
  }
}

Deno.test("when Redis is stopped for longer than a lease, every process exits 1 with a QueueError", async () => {
  const site = await startFixtureSite({ books: 400 });
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), "netweir-lost-"));
  try {
    const crawlers = await threeCrawling(dir, redis, site);
    await redis.kill("SIGTERM");
    assertQueueLost(await allExit(crawlers, GIVE_UP_WITHIN_MS));
  } finally {
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
    await site.close();
  }
});

Deno.test("when Redis hangs (SIGSTOP) for longer than a lease, every process exits 1 with a QueueError", async () => {
  const site = await startFixtureSite({ books: 400 });
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), "netweir-paused-"));
  try {
    const crawlers = await threeCrawling(dir, redis, site);
    await redis.pause();
    // Redis stays frozen until every process has exited: none of them ever gets an answer again.
    assertQueueLost(await allExit(crawlers, GIVE_UP_WITHIN_MS));
  } finally {
    await redis.resume();
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
    await site.close();
  }
});

Deno.test("when Redis answers heartbeats but refuses every push for a lease, the process exits 1 with a QueueError", async () => {
  const site = await startFixtureSite({ books: 20 });
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), "netweir-refused-"));
  try {
    // A login that may use every key of the crawl but its duplicate filter, which every push reads first: the
    // heartbeat and leases work, and every push fails before it writes anything.
    const keys = ["procs", "held:*", "meta", "prios", "hosts:*", "q:*", "bad:*", "marks", "lease", "stats", "cleared"]
      .map((key) => `~netweir:{Shop}:${key}`);
    await redis.command("ACL", "SETUSER", "crawler", "on", ">crawler-pw", "+@all", ...keys);
    const crawler = startCrawler({
      dir,
      name: "refused",
      site,
      queue: `redis://crawler:crawler-pw@127.0.0.1:${redis.port}/0`,
      settings: [`queue_lease=${LEASE}`],
    });
    const [result] = await allExit([crawler], GIVE_UP_WITHIN_MS);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /\nnetweir: the queue kept failing for 3 s: .*can't access at least one of the keys/);
    assert.match(result.stderr, /WARNING queue call failed, retrying/);
    assert.doesNotMatch(result.stderr, /crawler-pw/);
    assert.equal(site.requests.length, 0);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
    await site.close();
  }
});
