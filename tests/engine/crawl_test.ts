import assert from "node:assert/strict";
import {
  Crawl,
  type Item,
  MemoryFrontier,
  type Page,
  Request,
  resolveCrawlSettings,
  Settings,
  type SettingsInit,
} from "../../mod.ts";
import type { Spider } from "../../src/spider/spider.ts";
import { createLogger } from "../../src/log.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { FollowAllSpider, ListSpider, ShopSpider } from "./_spiders.ts";

const quiet = createLogger("error", () => {});

/** Runs a spider with settings over fast defaults and collects its items in memory. */
async function crawl(spider: Spider, settings: SettingsInit = {}) {
  const items: Item[] = [];
  const values = resolveCrawlSettings({
    overrides: new Settings({ minDelay: 0, autothrottle: false, retryBackoff: 0.01, progress: false, ...settings }),
  });
  const run = new Crawl(spider, {
    settings: values,
    log: quiet,
    sink: { write: (batch) => Promise.resolve(void items.push(...batch)), close: () => Promise.resolve() },
  });
  const stats = await run.run();
  return { items, stats };
}

Deno.test("a crawl of the shop yields every book once and fetches each page once", async () => {
  const site = await startFixtureSite({ books: 45 });
  try {
    const { items, stats } = await crawl(new ShopSpider(site.url + "shop/"));
    assert.equal(items.length, 45);
    assert.equal(new Set(items.map((item) => item.url)).size, 45);
    assert.equal(stats.finish_reason, "finished");
    assert.equal(stats.pages, 45 + 3); // 45 books, 3 listing pages of 20
    const shopRequests = site.requests.filter((r) => r.path.startsWith("/shop/"));
    assert.equal(new Set(shopRequests.map((r) => r.path)).size, shopRequests.length);
    assert.ok(items.every((item) => typeof item.title === "string" && (item.title as string).length > 0));
  } finally {
    await site.close();
  }
});

Deno.test("max_items stops the crawl with finish_reason max_items, at exactly the limit when a page holds one item", async () => {
  const site = await startFixtureSite({ books: 100 });
  try {
    // One request at a time and one item per book page: the limit is checked as each page is done, before the next
    // starts, so nothing is in flight to add items past it.
    const { items, stats } = await crawl(new ShopSpider(site.url + "shop/"), { maxItems: 10, concurrency: 1 });
    assert.equal(stats.finish_reason, "max_items");
    assert.equal(items.length, 10);
    assert.equal(stats.items, 10);
  } finally {
    await site.close();
  }
});

Deno.test("max_pages stops the crawl with finish_reason max_pages", async () => {
  const site = await startFixtureSite({ books: 100 });
  try {
    const { stats } = await crawl(new ShopSpider(site.url + "shop/"), { maxPages: 5, concurrency: 1 });
    assert.equal(stats.finish_reason, "max_pages");
    assert.equal(stats.pages, 5);
  } finally {
    await site.close();
  }
});

Deno.test("max_time stops a crawl that would go on for ever", async () => {
  const site = await startFixtureSite();
  try {
    const spider = new ListSpider([site.url + "hang"]);
    const { stats } = await crawl(spider, { maxTime: 0.5, timeout: 60 });
    assert.equal(stats.finish_reason, "max_time");
  } finally {
    await site.close();
  }
});

Deno.test("max_errors stops the crawl after that many failed requests", async () => {
  const site = await startFixtureSite();
  try {
    const urls = Array.from({ length: 10 }, (_, i) => `${site.url}status/500?n=${i}`);
    const spider = new ListSpider(urls);
    spider.settings = new Settings({ concurrency: 1 });
    const { stats } = await crawl(spider, { maxErrors: 3, retries: 0, concurrency: 1 });
    assert.equal(stats.finish_reason, "max_errors");
    assert.equal(stats.errors, 3);
  } finally {
    await site.close();
  }
});

// Subdomains of an allowed domain are tested in admission_test.ts: a fixture site on 127.0.0.1 has none to follow.
Deno.test("offsite links are dropped and counted, links to the allowed host are followed", async () => {
  const site = await startFixtureSite();
  try {
    const spider = new FollowAllSpider(site.url + "links");
    spider.allowedDomains = ["127.0.0.1"];
    const { stats } = await crawl(spider);
    const dropped = stats.dropped as Record<string, number>;
    assert.ok(dropped.offsite > 0, "the links page points at other hosts");
    assert.ok(site.hits("/links/base/relative.html") === 1, "same-host links are followed");
  } finally {
    await site.close();
  }
});

Deno.test("max_depth drops requests deeper than the limit", async () => {
  const site = await startFixtureSite({ books: 100 });
  try {
    const { stats } = await crawl(new ShopSpider(site.url + "shop/"), { maxDepth: 1 });
    const dropped = stats.dropped as Record<string, number>;
    assert.ok(dropped.depth > 0);
    // depth 0: the first listing; depth 1: its 20 books and page 2. Nothing from page 2 is fetched.
    assert.equal(stats.pages, 22);
  } finally {
    await site.close();
  }
});

Deno.test("crawler traps end: repeating paths and far-off calendars are dropped", async () => {
  const site = await startFixtureSite();
  try {
    const { stats } = await crawl(new FollowAllSpider(site.url + "trap/"));
    assert.equal(stats.finish_reason, "finished");
    assert.ok((stats.dropped as Record<string, number>).trap > 0);
    const calendar = await crawl(new FollowAllSpider(site.url + "calendar?month=2020-01"));
    assert.equal(calendar.stats.finish_reason, "finished");
    assert.ok((calendar.stats.dropped as Record<string, number>).trap > 0);
  } finally {
    await site.close();
  }
});

Deno.test("failed requests are retried and succeed when the server recovers", async () => {
  const site = await startFixtureSite();
  try {
    const spider = new ListSpider([site.url + "flaky/a?fail=2&code=503"]);
    const { stats } = await crawl(spider, { retries: 2 });
    assert.equal(stats.retries, 2);
    assert.equal(spider.seen.length, 1);
    assert.equal(spider.seen[0].status, 200);
    assert.equal(site.hits("/flaky/a"), 3);
  } finally {
    await site.close();
  }
});

Deno.test("a request that fails every retry goes to its errback", async () => {
  const site = await startFixtureSite();
  try {
    const spider = new ListSpider([site.url + "flaky/b?fail=5&code=503"]);
    const { stats } = await crawl(spider, { retries: 1 });
    assert.equal(site.hits("/flaky/b"), 2);
    assert.deepEqual(spider.failures, [`${site.url}flaky/b?fail=5&code=503: HttpStatusError`]);
    assert.equal(stats.retries, 1);
  } finally {
    await site.close();
  }
});

Deno.test("robots.txt is obeyed: disallowed pages are not fetched and are counted", async () => {
  const site = await startFixtureSite({ robots: "User-agent: *\nDisallow: /json\n" });
  try {
    const spider = new ListSpider([site.url + "json", site.url + "echo"]);
    const { stats } = await crawl(spider);
    assert.equal(site.hits("/json"), 0);
    assert.equal(site.hits("/echo"), 1);
    assert.equal(site.hits("/robots.txt"), 1);
    assert.equal((stats.dropped as Record<string, number>).robots, 1);
  } finally {
    await site.close();
  }
});

Deno.test("a redirect is followed only where a link could go: not off allowedDomains, not past robots.txt", async () => {
  const site = await startFixtureSite({ robots: "User-agent: *\nDisallow: /json\n" });
  try {
    class OnSite extends ListSpider {
      override allowedDomains = ["127.0.0.1"];
    }
    const redirectTo = (target: string) => `${site.url}redirect-to?url=${encodeURIComponent(target)}`;
    const offsite = `http://localhost:${new URL(site.url).port}/echo?offsite`;
    const spider = new OnSite([redirectTo(offsite), redirectTo("/json"), redirectTo("/echo?kept")]);
    const { stats } = await crawl(spider, { retries: 0 });
    const dropped = stats.dropped as Record<string, number>;
    assert.equal(dropped.offsite, 1);
    assert.equal(dropped.robots, 1);
    assert.equal(site.hits("/json"), 0);
    assert.deepEqual(spider.seen.map((page) => new URL(page.url).search), ["?kept"]);
    assert.deepEqual(spider.failures, [], "a refused redirect is not a failure");
    assert.equal(stats.errors ?? 0, 0);
  } finally {
    await site.close();
  }
});

Deno.test("a site's Crawl-delay holds from its first requests: nothing else starts before robots.txt is known", async () => {
  const site = await startFixtureSite({ robots: "User-agent: *\nCrawl-delay: 0.4\n" });
  try {
    const urls = [1, 2, 3].map((n) => `${site.url}echo?${n}`);
    await crawl(new ListSpider(urls), { perDomain: 8, concurrency: 8 });
    const starts = site.requests.filter((request) => request.path.startsWith("/echo")).map((request) => request.at);
    assert.equal(starts.length, 3);
    // per_domain 8 would let all three start together; the site asked for 0.4 s between them.
    for (let i = 1; i < starts.length; i++) {
      assert.ok(
        starts[i] - starts[i - 1] >= 350,
        `requests ${i} and ${i + 1} were ${starts[i] - starts[i - 1]} ms apart`,
      );
    }
  } finally {
    await site.close();
  }
});

Deno.test("a slow site at the head of the queue does not hold up the others: each gets its own share of the slots", async () => {
  const slowSite = await startFixtureSite();
  const fastSite = await startFixtureSite({ hostname: "127.0.0.2" });
  try {
    // Thirty slow pages first in the queue, then ten fast ones on another host. per_domain 2 lets two of the slow
    // pages run at once; the other slots are for other sites, if the crawl can reach their requests.
    const slow = Array.from({ length: 30 }, (_, i) => `${slowSite.url}slow?ms=150&n=${i}`);
    const fast = Array.from({ length: 10 }, (_, i) => `${fastSite.url}echo?n=${i}`);
    const spider = new ListSpider([...slow, ...fast]);
    await crawl(spider, { concurrency: 6, perDomain: 2, obeyRobotsTxt: false });
    assert.equal(spider.seen.length, 40);
    const order = spider.seen.map((page) => new URL(page.url).hostname);
    const lastFast = order.lastIndexOf("127.0.0.2");
    // Had the crawl taken requests strictly in order, every fast page would come after the first 26 slow ones.
    assert.ok(lastFast < 20, `the fast site's last page was page ${lastFast + 1} of 40: ${order.join(" ")}`);
  } finally {
    await slowSite.close();
    await fastSite.close();
  }
});

Deno.test("higher priority requests are fetched first", async () => {
  const site = await startFixtureSite();
  try {
    const spider = new ListSpider([
      new Request({ url: site.url + "echo?p=low", priority: -5 }),
      new Request({ url: site.url + "echo?p=mid" }),
      new Request({ url: site.url + "echo?p=high", priority: 10 }),
    ]);
    await crawl(spider, { concurrency: 1, obeyRobotsTxt: false });
    assert.deepEqual(spider.seen.map((s) => new URL(s.url).search), ["?p=high", "?p=mid", "?p=low"]);
  } finally {
    await site.close();
  }
});

Deno.test("per_domain caps the requests in flight to one host", async () => {
  let active = 0;
  let most = 0;
  const { runtime } = await import("../../src/runtime/mod.ts");
  const server = await runtime.listen(async () => {
    active++;
    most = Math.max(most, active);
    await new Promise((resolve) => setTimeout(resolve, 30));
    active--;
    return new Response("<html></html>", { headers: { "content-type": "text/html" } });
  }, { hostname: "127.0.0.1", port: 0 });
  try {
    const urls = Array.from({ length: 12 }, (_, i) => `http://127.0.0.1:${server.port}/p${i}`);
    await crawl(new ListSpider(urls), { perDomain: 2, concurrency: 8, obeyRobotsTxt: false });
    assert.equal(most, 2);
  } finally {
    await server.close();
  }
});

Deno.test("pipelines can change and drop items, and are opened and closed once", async () => {
  const site = await startFixtureSite({ books: 20 });
  try {
    const spider = new ShopSpider(site.url + "shop/");
    const calls: string[] = [];
    spider.pipelines = [{
      open: () => void calls.push("open"),
      process: (item: Item) => (item.title as string).length % 2 === 0 ? null : { ...item, checked: true },
      close: () => void calls.push("close"),
    }];
    const { items, stats } = await crawl(spider);
    assert.deepEqual(calls, ["open", "close"]);
    assert.equal(items.length + (stats.items_dropped as number), 20);
    assert.ok(items.every((item) => item.checked === true));
  } finally {
    await site.close();
  }
});

Deno.test("a request middleware can drop a request or answer it itself", async () => {
  const site = await startFixtureSite();
  try {
    const spider = new ListSpider([site.url + "echo?drop", site.url + "echo?answer", site.url + "echo?fetch"]);
    const { makeResponse } = await import("../../mod.ts");
    spider.middlewares = [{
      processRequest(request: Request) {
        if (request.url.endsWith("drop")) return null;
        if (request.url.endsWith("answer")) return makeResponse(request, { body: "<p>local</p>" });
        return undefined;
      },
    }];
    const { stats } = await crawl(spider, { obeyRobotsTxt: false });
    assert.equal(site.hits("/echo"), 1);
    assert.deepEqual(spider.seen.map((s) => new URL(s.url).search).sort(), ["?answer", "?fetch"]);
    assert.equal((stats.dropped as Record<string, number>).middleware, 1);
  } finally {
    await site.close();
  }
});

Deno.test("a callback that throws is counted as an error and the crawl goes on", async () => {
  const site = await startFixtureSite();
  try {
    class Throwing extends ListSpider {
      override parse(page: Page) {
        if (page.url.endsWith("bad")) throw new Error("boom");
        return super.parse(page);
      }
    }
    const spider = new Throwing([site.url + "echo?bad", site.url + "echo?good"]);
    const { items, stats } = await crawl(spider, { obeyRobotsTxt: false });
    assert.equal(stats.errors, 1);
    assert.equal(items.length, 1);
    assert.equal(stats.finish_reason, "finished");
  } finally {
    await site.close();
  }
});

Deno.test("two crawls in one process share nothing", async () => {
  const one = await startFixtureSite({ books: 20 });
  const two = await startFixtureSite({ books: 30 });
  try {
    const [a, b] = await Promise.all([
      crawl(new ShopSpider(one.url + "shop/")),
      crawl(new ShopSpider(two.url + "shop/"), { maxItems: 5, concurrency: 1 }),
    ]);
    assert.equal(a.items.length, 20);
    assert.equal(a.stats.finish_reason, "finished");
    assert.equal(b.stats.finish_reason, "max_items");
    assert.ok(b.items.every((item) => (item.url as string).startsWith(two.origin)));
  } finally {
    await one.close();
    await two.close();
  }
});

Deno.test("a stop gives up on a callback that never returns and gives its request back", async () => {
  const site = await startFixtureSite();
  try {
    class Stuck extends ListSpider {
      override parse(): Promise<void> {
        return new Promise(() => {}); // never settles
      }
    }
    const frontier = new MemoryFrontier();
    const values = resolveCrawlSettings({ overrides: new Settings({ obeyRobotsTxt: false, progress: false }) });
    const run = new Crawl(new Stuck([site.url + "echo"]), { settings: values, log: quiet, frontier, stopGraceMs: 100 });
    const done = run.run();
    while (site.hits("/echo") === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    run.stop("shutdown");
    const stats = await done;
    assert.equal(stats.finish_reason, "shutdown");
    assert.equal((await frontier.status()).waiting, 1, "the stuck request is back in the queue");
  } finally {
    await site.close();
  }
});

/**
 * A memory frontier whose finish answers only after `delayMs`, like a shared queue a round trip away, and which
 * records what the crawl did while finishes were on their way.
 */
class SlowFinishFrontier extends MemoryFrontier {
  pendingFinishes = 0;
  held = 0;
  maxHeld = 0;
  leasesWhileFinishing = 0;
  finishesPendingAtClose = -1;
  constructor(readonly delayMs: number) {
    super();
  }
  override async lease(max: number) {
    if (this.pendingFinishes > 0) this.leasesWhileFinishing++;
    const leases = await super.lease(max);
    this.held += leases.length;
    this.maxHeld = Math.max(this.maxHeld, this.held);
    return leases;
  }
  override async finish(...args: Parameters<MemoryFrontier["finish"]>) {
    this.pendingFinishes++;
    await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    await super.finish(...args);
    this.pendingFinishes--;
    this.held--;
  }
  override async close() {
    this.finishesPendingAtClose = this.pendingFinishes;
    await super.close();
  }
}

Deno.test("a page's slot serves the next request while its finish is on its way, and the crawl waits for every finish", async () => {
  const site = await startFixtureSite({ books: 30 });
  try {
    const frontier = new SlowFinishFrontier(40);
    const items: Item[] = [];
    const values = resolveCrawlSettings({
      overrides: new Settings({
        minDelay: 0,
        autothrottle: false,
        progress: false,
        concurrency: 1,
        obeyRobotsTxt: false,
      }),
    });
    const stats = await new Crawl(new ShopSpider(site.url + "shop/"), {
      settings: values,
      log: quiet,
      frontier,
      sink: { write: (batch) => Promise.resolve(void items.push(...batch)), close: () => Promise.resolve() },
    }).run();
    assert.equal(stats.finish_reason, "finished");
    assert.equal(new Set(items.map((item) => item.url)).size, 30);
    assert.equal(frontier.finishesPendingAtClose, 0, "the frontier was closed with finishes still on their way");
    assert.equal(frontier.held, 0);
    assert.ok(frontier.leasesWhileFinishing > 0, "the crawl never leased while a finish was on its way");
    // concurrency 1: at most one running or waiting, plus at most one more finishing.
    assert.ok(frontier.maxHeld <= 2, `held ${frontier.maxHeld} requests at once`);
  } finally {
    await site.close();
  }
});
