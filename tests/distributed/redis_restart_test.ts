import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startRedis } from "../helpers/redis.ts";
import { bookUrls, readItems, readStats, startCrawler, waitUntil } from "./_crawl.ts";

const BOOKS = 300;

Deno.test("a Redis restarted within the lease costs nothing: the crawl finishes with every page", async () => {
  const site = await startFixtureSite({ books: BOOKS });
  // Its data on disk, written before each answer, so the restarted server has the queue as it was.
  const redis = await startRedis({ appendonly: true });
  const dir = await mkdtemp(join(tmpdir(), "netweir-restart-"));
  try {
    const crawlers = ["a", "b", "c"].map((name) =>
      startCrawler({
        dir,
        name,
        site,
        queue: redis.url,
        settings: ["queue_lease=6", "min_delay=0.05", "autothrottle=false", "per_domain=2"],
      })
    );
    await waitUntil("a third of the books are written", async () => {
      const files = await Promise.all(crawlers.map((crawler) => readItems(crawler.items)));
      return files.flat().length >= BOOKS / 3;
    });
    await redis.kill("SIGTERM");
    // Down for a second: the processes' calls fail and are retried meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await redis.restart();
    for (const crawler of crawlers) {
      const result = await crawler.process.wait();
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, /queue (call|heartbeat) failed, retrying/);
    }
    const files = await Promise.all(crawlers.map((crawler) => readItems(crawler.items)));
    const urls = new Set(files.flat().map((item) => item.url));
    assert.deepEqual(bookUrls(site, BOOKS).filter((url) => !urls.has(url)), [], "no book is missing");
    for (const crawler of crawlers) assert.equal((await readStats(crawler.stats)).finish_reason, "finished");
  } finally {
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
    await site.close();
  }
});
