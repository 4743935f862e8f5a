/**
 * Clicks as Playwright makes them: on an element attached, visible, enabled, still over two animation frames, and the
 * one that gets the click at its point. Each test crawls the trap site once with its own Chromium, without retries, so
 * a click that lands wrong shows at once (file: about 8 s).
 */
import assert from "node:assert/strict";
import { type Page, Request, Spider, type Step } from "../../mod.ts";
import { crawl } from "../helpers/crawl_in_process.ts";
import { startTrapSite } from "./fixtures/trap_site.ts";

class Clicks extends Spider {
  pages: Page[] = [];
  failures: string[] = [];
  constructor(readonly target: string, readonly steps: Step[]) {
    super();
  }
  override async *start() {
    yield new Request({ url: this.target, steps: this.steps, errback: this.failed });
  }
  override parse(page: Page) {
    this.pages.push(page);
  }
  failed(failure: { error: Error }) {
    this.failures.push(failure.error.message);
  }
}

Deno.test("a repeated click on 'Load more' under a list that grows under it loads the whole list, never a product", async () => {
  const site = await startTrapSite();
  try {
    for (let round = 0; round < 3; round++) {
      const spider = new Clicks(site.url + "grow", [{ click: { selector: "#more", repeat: true, wait: 0.5 } }]);
      await crawl(spider, { retries: 0 });
      assert.deepEqual(spider.failures, [], `round ${round}`);
      assert.equal(spider.pages.length, 1);
      assert.equal(spider.pages[0].url, site.url + "grow", `round ${round}: the listing, not a product page`);
      assert.equal(spider.pages[0].css("a.product").length, site.growTotal, `round ${round}: every load`);
    }
    assert.equal(site.requests.filter((path) => path.startsWith("/product/")).length, 0, "no click hit a product");
  } finally {
    await site.close();
  }
});

Deno.test("a click on a button under an overlay fails with a step error naming what covers it", async () => {
  const site = await startTrapSite();
  try {
    // 5 s for the step: time for the click to find out what covers the button (at 1 s a loaded machine timed out
    // before it had looked once, and the message named nothing).
    const spider = new Clicks(site.url + "covered", [{ click: "#buy", timeout: 5 }]);
    await crawl(spider, { retries: 0 });
    assert.equal(spider.pages.length, 0);
    assert.equal(spider.failures.length, 1);
    assert.match(spider.failures[0], /^step 0 \(click "#buy"\) timed out after 5 s: .*covered by div#cookie-banner/);
  } finally {
    await site.close();
  }
});
