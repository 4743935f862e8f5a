/**
 * What a rendered page may do besides showing itself, and what a step may leave behind: requests still going when the
 * tab moves on, images a block turns down, popups, dialogs, a `call` step that changes the tab, a script that throws.
 * Each test crawls the trap site with a Chromium of its own (file: about 40 s).
 */
import assert from "node:assert/strict";
import { type BrowserPage, type Page, Request, Spider, type Step } from "../../mod.ts";
import { runtime } from "../../src/runtime/mod.ts";
import { crawl } from "../helpers/crawl_in_process.ts";
import { startTrapSite } from "./fixtures/trap_site.ts";

/** Renders each of `targets` in turn (the next once the last is parsed), with its steps; keeps pages and failures. */
class InTurn extends Spider {
  pages: Page[] = [];
  failures: Array<{ url: string; reason: string; message: string }> = [];
  constructor(readonly targets: Array<{ url: string; steps?: Step[] }>) {
    super();
  }
  override async *start() {
    yield this.#request(0);
  }
  #request(index: number) {
    const { url, steps } = this.targets[index];
    return new Request({ url, render: true, steps, meta: { index }, errback: this.failed });
  }
  override *parse(page: Page) {
    this.pages.push(page);
    const next = (page.meta.index as number) + 1;
    if (next < this.targets.length) yield this.#request(next);
  }
  *failed(failure: { error: Error & { reason?: string }; request: Request }) {
    this.failures.push({
      url: failure.request.url,
      reason: failure.error.reason ?? "",
      message: failure.error.message,
    });
    const next = (failure.request.meta.index as number) + 1;
    if (next < this.targets.length) yield this.#request(next);
  }
  leaveAScript(tab: BrowserPage) {
    return tab.evaluateOnNewDocument("window.__left = 'left by the last request'");
  }
  async readTheTitle(tab: BrowserPage) {
    return { title: await tab.title(), url: tab.url() };
  }
}

const ONE_TAB = { browserTabs: 1, concurrency: 1, timeout: 10 };

Deno.test("networkidle in a reused tab whose last page still had a request going waits for this page's only", async () => {
  const site = await startTrapSite();
  try {
    const spider = new InTurn([
      { url: site.url + "keeps-polling" },
      { url: site.url + "quiet", steps: [{ wait_for: "networkidle" }] },
    ]);
    await crawl(spider, { ...ONE_TAB, retries: 0 });
    assert.deepEqual(spider.failures, []);
    assert.deepEqual(spider.pages.map((page) => page.css("p").text()), ["polling", "nothing more to load"]);
  } finally {
    await site.close();
  }
});

Deno.test("networkidle counts a request browser_block turned down (CSS background images) as finished", async () => {
  const site = await startTrapSite();
  try {
    const spider = new InTurn([{ url: site.url + "background", steps: [{ wait_for: "networkidle" }] }]);
    const { stats } = await crawl(spider, { ...ONE_TAB, retries: 0 });
    assert.deepEqual(spider.failures, []);
    assert.equal(spider.pages.length, 1);
    assert.equal(stats["browser.blocked"], 41, JSON.stringify(stats));
    assert.equal(site.requests.filter((path) => path.endsWith(".png")).length, 0);
  } finally {
    await site.close();
  }
});
