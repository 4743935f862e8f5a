/**
 * A crawl process stopped (SIGSTOP) past queue_lease, taken for dead, and resumed (SIGCONT): it takes its own page,
 * put back in the queue, again, and the links that page yields must still be queued. On a chain-shaped site a link
 * dropped as "already queued" ends the crawl there, with exit 0.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startRedis } from "../helpers/redis.ts";
import { sleep } from "../helpers/wait.ts";
import { openFrontier } from "../queue/_frontier.ts";
import { readItems, readStats, startCrawler, waitUntil } from "./_crawl.ts";

const PAGES = 40;
const LEASE = 3;

/** Crawls the chain with one process, stopped past its lease and resumed once it held a page, then checks the chain. */
async function resumedChain(settings: string[]): Promise<void> {
  const site = await startFixtureSite({});
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), "netweir-resumed-"));
  try {
    const crawler = startCrawler({
      dir,
      name: "resumed",
      site,
      queue: redis.url,
      spider: "Chain",
      settings: [`queue_lease=${LEASE}`, "autothrottle=false", ...settings],
      args: ["-a", `pages=${PAGES}`, "-a", "ms=300"],
    });
    await waitUntil("the chain is under way", async () => (await readItems(crawler.items)).length >= 5);
    // Stopped while it holds a page (nearly always: each page takes 300 ms to arrive), until another process takes
    // that page back; if it held none at that moment, it is let go for a moment and stopped again.
    let reclaimed = 0;
    for (let attempt = 0; attempt < 5 && reclaimed === 0; attempt++) {
      await crawler.process.kill("SIGSTOP");
      await sleep(LEASE * 1000 + 500);
      // Another process joins: its first heartbeat takes back what the silent one held. It leaves at once.
      const { frontier } = await openFrontier(redis.url, "Chain", { leaseSeconds: LEASE });
      reclaimed = frontier.stats().leases_reclaimed;
      await frontier.close();
      await crawler.process.kill("SIGCONT");
      if (reclaimed === 0) await sleep(200);
    }
    assert.equal(reclaimed, 1, "the stopped process held the chain's page, and it was taken back");

    const result = await crawler.process.wait();
    assert.equal(result.code, 0, result.stderr);
    const seen = new Set((await readItems(crawler.items)).map((item) => item.n));
    const missing = Array.from({ length: PAGES }, (_, n) => n).filter((n) => !seen.has(n));
    assert.deepEqual(missing, [], `every page of the chain was fetched:\n${result.stderr}`);
    assert.match(result.stderr, /taken for dead/);
    assert.equal((await readStats(crawler.stats)).finish_reason, "finished");
  } finally {
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
    await site.close();
  }
}

Deno.test("a process stopped past its lease and resumed fetches the whole chain, its own page's links included", async () => {
  await resumedChain([]);
});

Deno.test("with callback workers, a resumed process's workers forget the links they were told were queued", async () => {
  await resumedChain(["workers=1"]);
});
