/**
 * What a page parsed from its body (text, document) is let go as soon as its callback is done: before the next
 * page's callback runs, even when many responses come in at once. Otherwise every page of a burst would hold its
 * document until the last callback of the burst ran (docs/design/engine.md, "Pages let go at once").
 */
import assert from "node:assert/strict";
import type { Page } from "../../mod.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { crawlItems } from "./_crawl.ts";
import { ShopSpider } from "./_spiders.ts";

/** The shop spider, noting on each book page how many earlier book pages still hold their parsed document. */
class WatchingSpider extends ShopSpider {
  readonly pages: Page[] = [];
  mostStillHeld = 0;

  override parseBook(page: Page) {
    const held = this.pages.filter((earlier) => earlier.lightBuilt || earlier.domBuilt).length;
    this.mostStillHeld = Math.max(this.mostStillHeld, held);
    this.pages.push(page);
    return super.parseBook(page);
  }
}

Deno.test("a page's parsed document is let go before the next page's callback runs, with 32 requests at once", async () => {
  const site = await startFixtureSite({ books: 200 });
  try {
    const spider = new WatchingSpider(site.url + "shop/");
    const { items, stats } = await crawlItems(spider, { concurrency: 32, per_domain: 32 });
    assert.equal(items.length, 200);
    assert.equal(stats.finish_reason, "finished");
    // Each book page did build its document (css("h1") is answered from it) and let it go afterwards.
    assert.equal(spider.pages.length, 200);
    assert.ok(items.every((item) => typeof item.title === "string" && item.title !== ""));
    assert.equal(spider.mostStillHeld, 0);
  } finally {
    await site.close();
  }
});
