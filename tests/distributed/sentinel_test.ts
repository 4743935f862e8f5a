/**
 * A shared crawl through Redis Sentinel (three redis-servers, a master and two replicas, and three redis-sentinel
 * processes, all on 127.0.0.1): the master is SIGKILLed mid-crawl, a replica is promoted, and the processes find it
 * through the Sentinels and finish the crawl with every book. The gap (from the kill until items flow again) is
 * printed, not asserted: it depends on the Sentinels' down-after-milliseconds and on this shared machine's load.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startSentinels } from "../helpers/sentinel.ts";
import { expectEveryBook, readItems, startCrawler, waitUntil } from "./_crawl.ts";

const BOOKS = 300;

Deno.test("a crawl through Sentinel survives its master's SIGKILL: a replica is promoted and no book is missing", async () => {
  const site = await startFixtureSite({ books: BOOKS });
  const sentinels = await startSentinels();
  const dir = await mkdtemp(join(tmpdir(), "netweir-sentinel-"));
  try {
    const crawlers = ["a", "b"].map((name) =>
      startCrawler({
        dir,
        name,
        site,
        queue: sentinels.url(0),
        // The lease must outlast the failover (a second before the master is called down, then the election), or
        // the processes give the queue up as lost; min_delay keeps the crawl going long enough to kill mid-way.
        settings: ["queue_lease=15", "min_delay=0.05", "autothrottle=false", "per_domain=2"],
      })
    );
    const count = async () => (await Promise.all(crawlers.map((crawler) => readItems(crawler.items)))).flat().length;
    await waitUntil("a third of the books are written", async () => await count() >= BOOKS / 3);
    const oldPort = await sentinels.masterPort();
    const master = await sentinels.master();
    const killedAt = Date.now();
    const before = await count();
    await master.kill("SIGKILL");
    const newPort = await sentinels.waitForNewMaster(oldPort);
    const promotedAt = Date.now();
    assert.notEqual(newPort, oldPort);
    // The gap: until a book is written that needed the queue after the kill. Items already leased may still be
    // written meanwhile, so "flowing again" is counted as per_domain * 2 processes * 2 more than at the kill, and
    // at least one of them after the promotion.
    await waitUntil("books to be written again after the failover", async () => {
      return Date.now() > promotedAt && await count() >= before + 8;
    }, 90_000);
    const gap = (Date.now() - killedAt) / 1000;
    console.log(
      `failover: replica promoted ${((promotedAt - killedAt) / 1000).toFixed(1)} s after the master's SIGKILL; ` +
        `books flowing again after ${gap.toFixed(1)} s`,
    );
    const stats = await expectEveryBook(site, BOOKS, crawlers);
    for (const crawlerStats of stats) assert.equal(crawlerStats.finish_reason, "finished");
  } finally {
    await rm(dir, { recursive: true, force: true });
    await sentinels.stop();
    await site.close();
  }
});
