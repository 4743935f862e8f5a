/**
 * With the autothrottle on (the default), requests wait in the process for their site's next turn, and a page that
 * finishes frees one slot at a time. Leasing at every freed slot cost a shared queue a lease call a page, most of them
 * taking nothing (the one site was passed over as having enough waiting). Leases are batched: while requests wait
 * here and the last lease came back short, the next waits until half the process's slots are free, or a quarter of a
 * second has passed.
 */
import assert from "node:assert/strict";
import { type Page, Request, Spider } from "../../mod.ts";
import { MemoryFrontier } from "../../src/queue/memory.ts";
import type { Lease, LeaseOptions } from "../../src/queue/frontier.ts";
import { crawlItems } from "../engine/_crawl.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";

/** A memory frontier that counts the leases asked of it. */
class CountingFrontier extends MemoryFrontier {
  leaseCalls = 0;
  override lease(max: number, options?: LeaseOptions): Promise<Lease[]> {
    this.leaseCalls++;
    return super.lease(max, options);
  }
}

/** `pages` pages of one site, each answering after a few milliseconds. */
class OneSite extends Spider {
  constructor(readonly site: string, readonly pages: number) {
    super();
  }
  override async *start() {
    for (let i = 0; i < this.pages; i++) yield new Request({ url: new URL(`slow?ms=3&n=${i}`, this.site).href });
  }
  override parse(page: Page) {
    return { url: page.url };
  }
}

Deno.test("with the autothrottle on, a process leases in batches, not once a page", async () => {
  const PAGES = 300;
  const site = await startFixtureSite({});
  try {
    const frontier = new CountingFrontier();
    const { stats } = await crawlItems(
      new OneSite(site.url, PAGES),
      { autothrottle: true, obey_robots_txt: false },
      {},
      frontier,
    );
    assert.equal(stats.pages, PAGES);
    // Once a page was 263 of them. Batched, it is about two for every eight pages: one that brings half the 16 slots'
    // worth, and one at the next freed slot that finds only the site this process has enough of, and comes back short.
    assert.ok(frontier.leaseCalls < PAGES / 3, `${frontier.leaseCalls} leases for ${PAGES} pages`);
  } finally {
    await site.close();
  }
});
