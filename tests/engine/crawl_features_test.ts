import assert from "node:assert/strict";
import { type FetchedResponse, type Item, type Page, Request, Rule, Settings, Spider } from "../../mod.ts";
import { crawl } from "../helpers/crawl_in_process.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startProxy } from "../helpers/proxy.ts";
import { ListSpider, ShopSpider } from "./_spiders.ts";

Deno.test("cookies set by one page are sent with the next request", async () => {
  const site = await startFixtureSite();
  try {
    class Cookies extends Spider {
      override startUrls = [site.url + "cookies/set?session=abc"];
      override parse(_page: Page) {
        return new Request({ url: site.url + "cookies/show", callback: this.show });
      }
      show(page: Page) {
        return page.json<Item>();
      }
    }
    const { items } = await crawl(new Cookies());
    assert.deepEqual(items, [{ cookies: { session: "abc" } }]);
  } finally {
    await site.close();
  }
});

Deno.test("http_auth logs in to its host; a request's own auth works too", async () => {
  const site = await startFixtureSite({ basicAuth: { user: "me", password: "s3cret" } });
  try {
    const crawlWide = new ListSpider([site.url + "auth/basic"]);
    await crawl(crawlWide, { httpAuth: { "127.0.0.1": { user: "me", password: "s3cret" } } });
    assert.equal(crawlWide.seen[0]?.status, 200);
    const own = new ListSpider([
      new Request({ url: site.url + "auth/basic", auth: { user: "me", password: "s3cret" } }),
    ]);
    await crawl(own);
    assert.equal(own.seen[0]?.status, 200);
    const none = new ListSpider([site.url + "auth/basic"]);
    await crawl(none);
    assert.equal(none.seen.length, 0, "a 401 is not handed to parse");
    assert.equal(none.failures.length, 1);
  } finally {
    await site.close();
  }
});

Deno.test("requests go through the proxies, round robin per request", async () => {
  const site = await startFixtureSite();
  const one = await startProxy();
  const two = await startProxy();
  try {
    const urls = Array.from({ length: 4 }, (_, i) => `${site.url}echo?n=${i}`);
    await crawl(new ListSpider(urls), {
      proxies: [one.url, two.url],
      proxyRotation: "per_request",
      obeyRobotsTxt: false,
      concurrency: 1,
    });
    assert.equal(one.requests.length, 2);
    assert.equal(two.requests.length, 2);
    assert.equal(site.hits("/echo"), 4);
  } finally {
    await one.close();
    await two.close();
    await site.close();
  }
});

Deno.test("max_pages_per_domain drops what is over the limit for a host", async () => {
  const site = await startFixtureSite({ books: 40 });
  try {
    const { stats } = await crawl(new ShopSpider(site.url + "shop/"), { maxPagesPerDomain: 10, concurrency: 1 });
    assert.equal(stats.pages, 10);
    assert.ok((stats.dropped as Record<string, number>).max_pages_per_domain > 0);
    assert.equal(stats.finish_reason, "finished");
  } finally {
    await site.close();
  }
});

Deno.test("max_memory stops a process whose memory is over the limit", async () => {
  const site = await startFixtureSite();
  try {
    // Any live process uses more than 1 MiB, so the first check stops the crawl.
    const { stats } = await crawl(new ListSpider([site.url + "hang"]), { maxMemory: 1 });
    assert.equal(stats.finish_reason, "max_memory");
  } finally {
    await site.close();
  }
});

Deno.test("min_delay spaces requests to one host", async () => {
  const site = await startFixtureSite();
  try {
    const urls = Array.from({ length: 3 }, (_, i) => `${site.url}echo?n=${i}`);
    const started = Date.now();
    await crawl(new ListSpider(urls), { minDelay: 0.3, obeyRobotsTxt: false });
    // Three requests with at least 0.3 s between starts: 0.6 s at the least, whatever the machine's speed.
    assert.ok(Date.now() - started >= 600);
  } finally {
    await site.close();
  }
});

Deno.test("a response middleware can replace a response with a new request", async () => {
  const site = await startFixtureSite();
  try {
    const spider = new ListSpider([site.url + "status/404"]);
    spider.middlewares = [{
      processResponse(response: FetchedResponse) {
        return response.status === 404 ? new Request({ url: site.url + "echo?instead" }) : response;
      },
    }];
    await crawl(spider, { obeyRobotsTxt: false });
    assert.deepEqual(spider.seen.map((s) => new URL(s.url).search), ["?instead"]);
  } finally {
    await site.close();
  }
});

Deno.test("async pipelines run in order", async () => {
  const site = await startFixtureSite({ books: 3 });
  try {
    const spider = new ShopSpider(site.url + "shop/");
    spider.pipelines = [
      { process: async (item: Item) => ({ ...item, first: await Promise.resolve(1) }) },
      { process: (item: Item) => ({ ...item, second: (item.first as number) + 1 }) },
    ];
    const { items } = await crawl(spider);
    assert.equal(items.length, 3);
    assert.ok(items.every((item) => item.first === 1 && item.second === 2));
  } finally {
    await site.close();
  }
});

Deno.test("rules follow links and call their callbacks, as a CrawlSpider", async () => {
  const site = await startFixtureSite({ books: 25 });
  try {
    class ShopRules extends Spider {
      override startUrls = [site.url + "shop/"];
      override rules = [
        new Rule({ allow: /\/catalogue\/page-\d+\.html$/ }),
        new Rule({ allow: /\/catalogue\/[^/]+\/index\.html$/, callback: "book" }),
      ];
      book(page: Page) {
        return { title: page.css("h1").text() };
      }
    }
    const { items } = await crawl(new ShopRules());
    assert.equal(items.length, 25);
  } finally {
    await site.close();
  }
});

Deno.test("a spider's own profile applies under its settings and over the defaults", async () => {
  const site = await startFixtureSite({ books: 30 });
  try {
    const spider = new ShopSpider(site.url + "shop/");
    spider.profiles = { tiny: { maxItems: 3, concurrency: 1 } };
    spider.settings = new Settings({ profile: "tiny" });
    const { stats } = await crawl(spider);
    assert.equal(stats.finish_reason, "max_items");
  } finally {
    await site.close();
  }
});

Deno.test("a 429 with Retry-After is retried no sooner than it asks", async () => {
  const site = await startFixtureSite();
  try {
    const spider = new ListSpider([site.url + "status/429?retry_after=1"]);
    const started = Date.now();
    const { stats } = await crawl(spider, { retries: 1, obeyRobotsTxt: false });
    assert.equal(stats.retries, 1);
    assert.equal(site.hits("/status/429"), 2);
    assert.ok(Date.now() - started >= 1000, "the retry waited for Retry-After");
    assert.equal(spider.failures.length, 1);
  } finally {
    await site.close();
  }
});

Deno.test("a blocked page goes to onBlock when the spider has one, as a page", async () => {
  const site = await startFixtureSite();
  try {
    class Careful extends ListSpider {
      blocked: Array<{ url: string; status: number }> = [];
      onBlock(page: Page) {
        this.blocked.push({ url: page.url, status: page.status });
        return { blockedAt: page.url };
      }
    }
    const spider = new Careful([`${site.url}challenge/403`, `${site.url}empty`, `${site.url}echo`]);
    const { items, stats } = await crawl(spider, { obeyRobotsTxt: false });
    assert.deepEqual(spider.blocked.map((one) => one.status).sort(), [200, 403]);
    assert.equal(spider.seen.length, 1, "only the real page went to parse");
    assert.equal(items.filter((item) => "blockedAt" in item).length, 2);
    assert.equal(stats.blocked, 2);
    assert.equal(site.hits("/challenge/403"), 1, "not retried: onBlock decided");
  } finally {
    await site.close();
  }
});

Deno.test("without onBlock a blocked page is tried through another proxy, then handed to the errback", async () => {
  const site = await startFixtureSite();
  const one = await startProxy();
  const two = await startProxy();
  try {
    const spider = new ListSpider([`${site.url}challenge/503`]);
    const { stats } = await crawl(spider, {
      proxies: [one.url, two.url],
      proxyRotation: "per_domain",
      obeyRobotsTxt: false,
      retries: 3,
    });
    // Once through each proxy (the site blocks both), then the errback: no proxy was tried twice.
    assert.equal(one.requests.length, 1);
    assert.equal(two.requests.length, 1);
    assert.deepEqual(spider.failures, [`${site.url}challenge/503: BlockedError`]);
    assert.equal(stats.blocked, 2);
    assert.equal(stats.errors_blocked, 1);
  } finally {
    await one.close();
    await two.close();
    await site.close();
  }
});

Deno.test("a plain 503 is retried as before and is no block", async () => {
  const site = await startFixtureSite();
  try {
    const spider = new ListSpider([`${site.url}status/503`]);
    const { stats } = await crawl(spider, { obeyRobotsTxt: false, retries: 2 });
    assert.equal(site.hits("/status/503"), 3);
    assert.equal(stats.blocked ?? 0, 0);
  } finally {
    await site.close();
  }
});

Deno.test("with a cache directory a second run is answered from the cache: same items, no request to the site", async () => {
  const site = await startFixtureSite({ books: 12 });
  const dir = await Deno.makeTempDir({ prefix: "netweir-cache-" });
  try {
    const settings = { cache: `${dir}/http`, obeyRobotsTxt: false, retries: 0 };
    const first = await crawl(new ShopSpider(site.url + "shop/"), settings);
    const fetched = site.requests.length;
    assert.equal(first.items.length, 12);
    assert.equal(first.stats.cache_stores, fetched);

    const second = await crawl(new ShopSpider(site.url + "shop/"), settings);
    assert.equal(site.requests.length, fetched, "the second run asked the site for nothing");
    assert.deepEqual(second.items.map((item) => item.url).sort(), first.items.map((item) => item.url).sort());
    assert.equal(second.stats.cache_hits, fetched);
    assert.equal(second.stats.requests ?? 0, 0);

    // A server error is not kept: the next run asks again.
    const flaky = new ListSpider([`${site.url}status/503`]);
    await crawl(flaky, settings);
    await crawl(flaky, settings);
    assert.equal(site.hits("/status/503"), 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await site.close();
  }
});

Deno.test("deltafetch: a later run fetches only the item pages it has not scraped, and its listings every time", async () => {
  const site = await startFixtureSite({ books: 30 });
  const dir = await Deno.makeTempDir({ prefix: "netweir-deltafetch-" });
  try {
    const record = `${dir}/delta.db`;
    const bookHits = () => site.requests.filter((request) => /\/catalogue\/[^/]+_\d+\//.test(request.path)).length;
    // First run: stopped after a few books, as a crawl that found only some of them.
    const first = await crawl(new ShopSpider(site.url + "shop/"), { deltafetch: record, maxItems: 5, concurrency: 1 });
    assert.equal(first.items.length, 5);
    const booksFirst = bookHits();

    const second = await crawl(new ShopSpider(site.url + "shop/"), { deltafetch: record, concurrency: 2 });
    assert.equal(second.items.length, 25, "the 25 books not scraped before");
    assert.equal(new Set([...first.items, ...second.items].map((item) => item.url)).size, 30);
    assert.equal((second.stats.dropped as Record<string, number>).deltafetch, 5);
    assert.equal(bookHits() - booksFirst, 25, "no scraped book page fetched again");

    const third = await crawl(new ShopSpider(site.url + "shop/"), { deltafetch: record });
    assert.equal(third.items.length, 0);
    assert.ok(Number(third.stats.pages) >= 2, "the listings were fetched again, to look for new books");
  } finally {
    await Deno.remove(dir, { recursive: true });
    await site.close();
  }
});

Deno.test("deltafetch never drops start requests, and meta deltafetch_key names a request instead of its URL", async () => {
  const site = await startFixtureSite();
  const dir = await Deno.makeTempDir({ prefix: "netweir-deltafetch-" });
  try {
    const record = `${dir}/delta.db`;
    await crawl(new ListSpider([`${site.url}echo?a`]), { deltafetch: record, obeyRobotsTxt: false });
    await crawl(new ListSpider([`${site.url}echo?a`]), { deltafetch: record, obeyRobotsTxt: false });
    assert.equal(site.hits("/echo?a"), 2, "a start request is fetched every run");

    class Keyed extends Spider {
      override startUrls = [`${site.url}echo?start`];
      override parse() {
        return [1, 2].map((n) =>
          new Request({ url: `${site.url}echo?n=${n}`, callback: this.item, meta: { deltafetch_key: "the-item" } })
        );
      }
      item(page: Page) {
        return { url: page.url };
      }
    }
    const { items, stats } = await crawl(new Keyed(), { deltafetch: record, obeyRobotsTxt: false, concurrency: 1 });
    // Both links share one key: the first scraped is remembered, and a second run drops both.
    assert.ok(items.length >= 1);
    const again = await crawl(new Keyed(), { deltafetch: record, obeyRobotsTxt: false });
    assert.equal(again.items.length, 0);
    assert.equal((again.stats.dropped as Record<string, number>).deltafetch, 2);
    assert.ok(stats.finish_reason === "finished");
  } finally {
    await Deno.remove(dir, { recursive: true });
    await site.close();
  }
});

Deno.test("warc and har archive every page fetched from the network, bodies decompressed", async () => {
  const site = await startFixtureSite({ books: 3 });
  const dir = await Deno.makeTempDir({ prefix: "netweir-archives-" });
  try {
    const warc = `${dir}/crawl.warc.gz`;
    const har = `${dir}/crawl.har`;
    const spider = new ListSpider([
      `${site.url}echo?a=1`,
      `${site.url}gzip`,
      `${site.url}status/404`,
      `${site.url}auth/basic`,
    ]);
    const httpAuth = { "127.0.0.1": { user: "user", password: "pass" } };
    await crawl(spider, { warc, har, obeyRobotsTxt: false, retries: 0, httpAuth });

    // WARC: gzip members one per record; a warcinfo, then a response and a request record per fetch.
    const { gunzipSync } = await import("node:zlib");
    const text = new TextDecoder().decode(gunzipSync(await Deno.readFile(warc)));
    const records = text.split(/(?=WARC\/1\.1\r\n)/).filter((record) => record.startsWith("WARC/1.1"));
    const types = records.map((record) => /WARC-Type: (\w+)/.exec(record)![1]);
    assert.deepEqual(types.filter((type) => type === "response").length, 4);
    assert.deepEqual(types.filter((type) => type === "request").length, 4);
    // The login was sent (httpAuth) but is not archived; /echo's body repeats the headers it got, so only the
    // request records are looked at.
    const credentials = btoa("user:pass");
    const requests = records.filter((record) => /msgtype=request/.test(record));
    assert.ok(requests.every((record) => !record.includes(credentials)), "a login went into a WARC request record");
    assert.ok(requests.some((record) => /authorization: \[redacted\]/i.test(record)));
    assert.equal(types[0], "warcinfo");
    for (const record of records) {
      const [head, ...rest] = record.split("\r\n\r\n");
      const declared = Number(/Content-Length: (\d+)/.exec(head)![1]);
      const block = new TextEncoder().encode(rest.join("\r\n\r\n"));
      assert.equal(block.byteLength - 4, declared, "a record's Content-Length is its block, before the closing CRLFs");
    }
    const gzipped = records.find((record) =>
      /WARC-Target-URI: .*\/gzip\r\n/.test(record) && /msgtype=response/.test(record)
    )!;
    assert.doesNotMatch(gzipped, /content-encoding/i, "the body is archived decompressed");
    assert.match(gzipped, /HTTP\/1\.1 200 OK/);

    // HAR: one entry per fetch, with request headers as sent and the response body as text.
    const log = JSON.parse(await Deno.readTextFile(har)).log;
    assert.equal(log.version, "1.2");
    assert.equal(log.entries.length, 4);
    const statuses = log.entries.map((entry: { response: { status: number } }) => entry.response.status).sort();
    assert.deepEqual(statuses, [200, 200, 200, 404]);
    const sentHeaders = log.entries.flatMap((entry: { request: { headers: Array<{ value: string }> } }) =>
      entry.request.headers.map((header) => header.value)
    );
    assert.ok(!sentHeaders.some((value: string) => value.includes(credentials)), "a login went into the HAR file");
    assert.ok(sentHeaders.includes("[redacted]"));
    const echo = log.entries.find((entry: { request: { url: string } }) => entry.request.url.includes("echo"));
    assert.ok(echo.request.headers.some((h: { name: string }) => h.name.toLowerCase() === "user-agent"));
    assert.deepEqual(echo.request.queryString, [{ name: "a", value: "1" }]);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await site.close();
  }
});
