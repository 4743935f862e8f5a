/**
 * Junk where a dead process's held requests should be, written by hand before the crawl and again while it runs: a
 * string at its held key, and a held entry whose priority is nan. The processes drop it and count it in queue_bad,
 * and the crawl goes on to its last page.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startRedis } from "../helpers/redis.ts";
import { expectEveryBook, readItems, startCrawler, waitUntil } from "./_crawl.ts";

const BOOKS = 200;
const PREFIX = "netweir:{Shop}";

Deno.test("junk in dead processes' held entries is dropped and counted, and no page is missing", async () => {
  const site = await startFixtureSite({ books: BOOKS });
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), "netweir-junk-held-"));
  // Each held key is written before its process is listed: a heartbeat between the two would otherwise forget a
  // listed process that held nothing yet, and the junk written after it would never be read (nor counted).
  const junk = async (name: string) => {
    await redis.command("SET", `${PREFIX}:held:${name}-string`, "x");
    await redis.command("ZADD", `${PREFIX}:procs`, 0, `${name}-string`);
    await redis.command("HSET", `${PREFIX}:held:${name}-nan`, "1", `nan\n127.0.0.1\n{"v":1,"url":"${site.url}x"}`);
    await redis.command("ZADD", `${PREFIX}:procs`, 0, `${name}-nan`);
  };
  try {
    await junk("before");
    const crawlers = ["a", "b"].map((name) =>
      startCrawler({
        dir,
        name,
        site,
        queue: redis.url,
        settings: ["queue_lease=3", "min_delay=0.02", "autothrottle=false", "per_domain=2"],
      })
    );
    await waitUntil("a quarter of the books are written", async () => {
      const files = await Promise.all(crawlers.map((crawler) => readItems(crawler.items)));
      return files.flat().length >= BOOKS / 4;
    });
    await junk("during");
    const stats = await expectEveryBook(site, BOOKS, crawlers);
    assert.equal(stats.reduce((sum, one) => sum + Number(one.queue_bad ?? 0), 0), 4, JSON.stringify(stats));
    for (const one of stats) assert.equal(one.finish_reason, "finished");
  } finally {
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
    await site.close();
  }
});
