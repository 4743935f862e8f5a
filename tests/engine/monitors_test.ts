/**
 * Monitors in-process: the error-rate monitor on a crawl whose links partly point at a port nothing listens on, the
 * schema of a Crawl built directly (compiled when it starts, not by assembleCrawl), and the verdicts at the edges
 * (no items, no requests) judged from stats records.
 */
import assert from "node:assert/strict";
import { Crawl, type Item, type Page, resolveCrawlSettings, runSpider, Settings, Spider } from "../../mod.ts";
import { judgeMonitors } from "../../src/engine/monitors.ts";
import { freePort } from "../helpers/free_port.ts";

/** A site on 127.0.0.1: `/` links to `good` pages that each give a heading, and to `dead` URLs given by the test. */
function startSite(good: number, dead: string[]) {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const path = new URL(request.url).pathname;
    const links = [...Array.from({ length: good }, (_, i) => `/p/${i}`), ...dead];
    const body = path === "/" ? links.map((href) => `<a href="${href}">x</a>`).join("") : `<h1>${path}</h1>`;
    return new Response(body, { headers: { "content-type": "text/html" } });
  });
  return { url: `http://127.0.0.1:${server.addr.port}/`, close: () => server.shutdown() };
}

class Headings extends Spider {
  override *parse(page: Page) {
    for (const href of page.css("a").attrs("href")) yield page.follow(href, { callback: this.parseHeading });
  }
  parseHeading(page: Page) {
    return { heading: page.css("h1").text() };
  }
}

Deno.test("the error-rate monitor fails when more requests failed than it allows, and holds when fewer did", async () => {
  const port = await freePort();
  const dead = [1, 2].map((n) => `http://127.0.0.1:${port}/gone/${n}`);
  const site = startSite(7, dead);
  try {
    // 10 requests: the start page, 7 good pages and 2 refused: an error rate of 20%.
    const settings = (max: number) => ({
      logLevel: "error",
      obeyRobotsTxt: false,
      retries: 0,
      monitors: { max_error_rate: max },
    });
    const spider = () => Object.assign(new Headings(), { startUrls: [site.url] });
    const strict = await runSpider(spider(), { settings: settings(0.1) });
    assert.equal(strict.requests, 10);
    assert.equal(strict.errors, 2);
    assert.deepEqual(strict.monitors, {
      passed: false,
      checked: ["max_error_rate"],
      failed: [{ monitor: "max_error_rate", message: "2 errors in 10 requests (20%), more than 10%" }],
    });
    const lenient = await runSpider(spider(), { settings: settings(0.25) });
    assert.deepEqual(lenient.monitors, { passed: true, checked: ["max_error_rate"], failed: [] });
  } finally {
    await site.close();
  }
});

Deno.test("a Crawl built directly compiles its schema when it starts and drops the items that break it", async () => {
  const site = startSite(4, []);
  try {
    const items: Item[] = [];
    const monitors = { schema: { properties: { heading: { pattern: "^/p/[01]$" } } }, max_invalid: 2 };
    const settings = resolveCrawlSettings({
      overrides: new Settings({ logLevel: "error", obeyRobotsTxt: false, monitors }),
    });
    const crawl = new Crawl(Object.assign(new Headings(), { startUrls: [site.url] }), {
      settings,
      sink: { write: (written) => Promise.resolve(void items.push(...written)), close: () => Promise.resolve() },
    });
    const stats = await crawl.run();
    assert.deepEqual(items.map((item) => item.heading).sort(), ["/p/0", "/p/1"]);
    assert.equal(stats.items_invalid_heading, 2);
    assert.equal(stats.items_dropped_schema, 2);
    assert.deepEqual(stats.monitors, { passed: true, checked: ["schema"], failed: [] });
  } finally {
    await site.close();
  }
});

Deno.test("coverage fails on a crawl that wrote no items, and an error rate with no requests is 0", () => {
  const report = judgeMonitors(
    { max_error_rate: 0, coverage: [{ field: "title", min: 0 }] },
    { requests: 0, errors: 0, items: 0 },
  );
  assert.deepEqual(report, {
    passed: false,
    checked: ["max_error_rate", "coverage.title"],
    failed: [{ monitor: "coverage.title", message: "no items written to measure title on" }],
  });
});
