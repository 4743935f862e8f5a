/**
 * What a rendered page may do besides showing itself, and what a step may leave behind: requests still going when the
 * tab moves on, images a block turns down, popups, dialogs, a `call` step that changes the tab, a script that throws.
 * Each test crawls the trap site with a Chromium of its own (file: about 40 s).
 */
import assert from "node:assert/strict";
import { type BrowserPage, type Page, Request, Spider, type Step } from "../../mod.ts";
import { crawl } from "../helpers/crawl_in_process.ts";
import { openTestPool } from "../helpers/tab_pool.ts";
import { waitUntil } from "../helpers/wait.ts";
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
    return new Request({ url, render: true, steps, meta: { index }, errback: this.failed, dontFilter: true });
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

// One tab, and a render's whole time limit far above what any of these pages needs (under a second each): nothing
// here tests the limit, and at 10 s a loaded machine (load average 28 on two cores) ran the popups page out of it.
const ONE_TAB = { browserTabs: 1, concurrency: 1, timeout: 120 };

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

Deno.test("popups are closed before they fetch anything: robots.txt and allowed_domains hold", async () => {
  const site = await startTrapSite();
  const elsewhere = await startTrapSite();
  try {
    // Another site, by another name: off the spider's allowed domains.
    const offsite = `http://localhost:${new URL(elsewhere.url).port}/product/offsite`;
    const popups = new URL("popups", site.url);
    popups.searchParams.set("offsite", offsite);
    const spider = new InTurn(
      Array.from({ length: 5 }, () => ({ url: popups.href, steps: [{ click: "#blank" }, { wait_for: 0.3 }] })),
    );
    spider.allowedDomains = ["127.0.0.1"];
    const { stats, lines } = await crawl(spider, { ...ONE_TAB, retries: 0 });
    assert.deepEqual(spider.failures, []);
    assert.equal(spider.pages.length, 5);
    assert.equal(site.hits("/private/secret"), 0, "robots.txt forbids it");
    assert.equal(site.hits("/private/linked"), 0, "robots.txt forbids it");
    assert.equal(site.hits("/product/popup"), 0, "a popup is not fetched, even where the crawl may go");
    assert.equal(elsewhere.requests.length, 0, "another domain is not fetched");
    assert.equal(stats["browser.popups"], 20, JSON.stringify(stats));
    assert.ok(
      lines.some((line) => line.includes(`closed a popup to ${site.url}private/secret opened by ${popups.href}`)),
      lines.join("\n"),
    );
  } finally {
    await site.close();
    await elsewhere.close();
  }
});

Deno.test("a frame's document is fetched only where the crawl may go: robots.txt and allowed_domains hold", async () => {
  const site = await startTrapSite();
  const elsewhere = await startTrapSite();
  try {
    const frames = new URL("frames", site.url);
    frames.searchParams.set("offsite", `http://localhost:${new URL(elsewhere.url).port}/quiet`);
    const spider = new InTurn([{ url: frames.href, steps: [{ wait_for: 0.5 }] }]);
    spider.allowedDomains = ["127.0.0.1"];
    const { stats } = await crawl(spider, { ...ONE_TAB, retries: 0 });
    assert.deepEqual(spider.failures, []);
    assert.equal(spider.pages.length, 1);
    assert.equal(site.hits("/private/framed"), 0, "robots.txt forbids it");
    assert.equal(elsewhere.requests.length, 0, "another domain is not fetched");
    assert.equal(site.hits("/quiet"), 1, "a frame where the crawl may go loads");
    assert.equal(stats["browser.frames_refused"], 2, JSON.stringify(stats));
  } finally {
    await site.close();
    await elsewhere.close();
  }
});

Deno.test("no popup is left open: only the pool's tab stays", async () => {
  const site = await startTrapSite();
  const pool = openTestPool(1);
  try {
    for (let round = 0; round < 3; round++) {
      const tab = await pool.acquire(undefined);
      await tab.page.goto(site.url + "popups", { waitUntil: "load" });
      await tab.page.click("#blank");
      await waitUntil("the popups to close", async () => (await tab.page.browser().pages()).length === 1, 10_000);
      await pool.release(tab, true);
    }
    assert.equal(site.requests.filter((path) => path !== "/popups" && path !== "/favicon.ico").length, 0);
  } finally {
    await pool.close();
    await site.close();
  }
});

Deno.test("alert and confirm are dismissed and logged; a dialog step accepts them", async () => {
  const site = await startTrapSite();
  try {
    const spider = new InTurn([
      { url: site.url + "dialogs" },
      { url: site.url + "dialogs?again", steps: [{ dialog: "accept" }] },
    ]);
    const { lines } = await crawl(spider, { ...ONE_TAB, retries: 0 });
    assert.deepEqual(spider.failures, []);
    assert.deepEqual(spider.pages.map((page) => page.css("#answer").text()), ["cancelled", "confirmed"]);
    assert.ok(lines.some((line) => /dismissed a confirm dialog .*: sure\?/.test(line)), lines.join("\n"));
  } finally {
    await site.close();
  }
});

Deno.test("what a call step changes in the tab does not reach the next request in it", async () => {
  const site = await startTrapSite();
  try {
    const spider = new InTurn([
      { url: site.url + "quiet", steps: [{ call: "leaveAScript" }] },
      { url: site.url + "witness" },
    ]);
    await crawl(spider, { ...ONE_TAB, retries: 0 });
    assert.deepEqual(spider.failures, []);
    assert.equal(spider.pages[1].css("#seen").text(), "nothing");
  } finally {
    await site.close();
  }
});

Deno.test("a call step's return value reaches page.evaluated, in order with evaluate's", async () => {
  const site = await startTrapSite();
  try {
    const spider = new InTurn([{ url: site.url + "quiet", steps: [{ call: "readTheTitle" }, { evaluate: "1 + 1" }] }]);
    await crawl(spider, { ...ONE_TAB, retries: 0 });
    assert.deepEqual(spider.failures, []);
    assert.deepEqual(spider.pages[0].evaluated, [{ title: "Traps", url: site.url + "quiet" }, 2]);
  } finally {
    await site.close();
  }
});

Deno.test("an evaluate step whose script throws goes to the errback at once, with the script's error", async () => {
  const site = await startTrapSite();
  try {
    const spider = new InTurn([{ url: site.url + "throws", steps: [{ evaluate: "notDefined.x" }] }]);
    const { stats } = await crawl(spider, { ...ONE_TAB, retries: 2 });
    assert.equal(spider.failures.length, 1);
    assert.equal(spider.failures[0].reason, "browser_script");
    assert.match(
      spider.failures[0].message,
      /^step 0 \(evaluate "notDefined\.x"\) threw ReferenceError: notDefined is not defined$/,
    );
    assert.equal(site.hits("/throws"), 1, "not retried: it would throw again");
    assert.equal(stats.retries ?? 0, 0);
  } finally {
    await site.close();
  }
});

Deno.test("a timeout written inside the action's object is the step's time limit", async () => {
  const site = await startTrapSite();
  try {
    const spider = new InTurn([{ url: site.url + "quiet", steps: [{ click: { selector: "#never", timeout: 0.5 } }] }]);
    await crawl(spider, { ...ONE_TAB, retries: 0 });
    assert.equal(spider.failures.length, 1);
    assert.match(spider.failures[0].message, /^step 0 \(click "#never"\) timed out after 0\.5 s: /);
  } finally {
    await site.close();
  }
});
