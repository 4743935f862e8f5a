/**
 * A Redis that comes back behind: killed mid-crawl and restarted from a copy of its append-only files taken a moment
 * earlier, as after a crash with `appendfsync everysec`, or a failover to a replica that lagged. What the processes
 * did since the copy is gone from Redis, and what they remember as queued must not stand in for it.
 */
import assert from "node:assert/strict";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startRedis } from "../helpers/redis.ts";
import { expectEveryBook, readItems, startCrawler, waitUntil } from "./_crawl.ts";

const BOOKS = 300;

Deno.test("a Redis restarted from older data loses no page: the processes fetch again what it forgot", async () => {
  const site = await startFixtureSite({ books: BOOKS });
  const redis = await startRedis({ appendonly: true });
  const dir = await mkdtemp(join(tmpdir(), "netweir-older-"));
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
    const written = async () => (await Promise.all(crawlers.map((crawler) => readItems(crawler.items)))).flat().length;
    await waitUntil("a fifth of the books are written", async () => await written() >= BOOKS / 5);
    const [, data] = await redis.command("CONFIG", "GET", "dir") as string[];
    const older = join(dir, "appendonlydir");
    await cp(join(data, "appendonlydir"), older, { recursive: true });
    const atCopy = await written();
    await waitUntil("forty more books are written", async () => await written() >= atCopy + 40);
    // Redis dies and comes back from the copy: what the processes did since is gone.
    await redis.kill("SIGKILL");
    await rm(join(data, "appendonlydir"), { recursive: true });
    await cp(older, join(data, "appendonlydir"), { recursive: true });
    await redis.restart();

    for (const stats of await expectEveryBook(site, BOOKS, crawlers)) assert.equal(stats.finish_reason, "finished");
  } finally {
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
    await site.close();
  }
});
