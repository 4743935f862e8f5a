import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { type Page, Request, Spider } from "../../mod.ts";
import { startJsSite } from "../helpers/js_site.ts";
import { startProxy } from "../helpers/proxy.ts";
import { crawl } from "../helpers/crawl_in_process.ts";

Deno.test("cookies cross both ways: an HTTP login is sent by the browser, a script's cookie by later HTTP requests", async () => {
  const site = await startJsSite();
  try {
    const seen: Record<string, unknown> = {};
    class Session extends Spider {
      override async *start() {
        yield new Request({ url: site.url + "login", callback: this.loggedIn });
      }
      override parse() {}
      loggedIn() {
        return new Request({ url: site.url + "cookie-script", render: true, callback: this.scripted });
      }
      scripted(page: Page) {
        seen.scriptRan = page.css("#done").text();
        return new Request({ url: site.url + "cookies", callback: this.plain });
      }
      plain(page: Page) {
        seen.plain = page.json();
        return new Request({ url: site.url + "cookie-show", render: true, callback: this.show });
      }
      show(page: Page) {
        seen.server = page.css("#server").text();
        seen.script = page.css("#script").text();
      }
    }
    await crawl(new Session());
    assert.equal(seen.scriptRan, "set");
    assert.deepEqual(seen.plain, { cookies: { session: "http-login", from_script: "yes" } });
    assert.match(String(seen.server), /session=http-login/);
    assert.match(String(seen.script), /from_script=yes/);
    const rendered = site.headers.get("/cookie-script")!;
    assert.match(rendered.get("cookie") ?? "", /session=http-login/, "the login went with the rendered document");
  } finally {
    await site.close();
  }
});

Deno.test("a rendered request goes through the crawl's proxy: its document and the page's own requests", async () => {
  const site = await startJsSite({ products: 10, perPage: 10 });
  const proxy = await startProxy({ user: "p", password: "pw" });
  try {
    class Proxied extends Spider {
      links: string[] = [];
      override startUrls = [];
      override async *start() {
        yield new Request({ url: site.url, render: true, steps: [{ wait_for: "a.product" }] });
      }
      override parse(page: Page) {
        this.links = page.css("a.product").attrs("href");
      }
    }
    const spider = new Proxied();
    const proxyUrl = proxy.url.replace("http://", "http://p:pw@");
    await crawl(spider, { proxies: [proxyUrl] });
    assert.equal(spider.links.length, 5);
    assert.ok(proxy.requests.includes(site.url), proxy.requests.join("\n"));
    assert.ok(proxy.requests.some((target) => target.startsWith(site.url + "api/products")), proxy.requests.join("\n"));
  } finally {
    await proxy.close();
    await site.close();
  }
});

Deno.test("robots.txt and allowed domains hold for rendered pages and for where their steps navigate", async () => {
  const away = await startJsSite({ hostname: "127.0.0.2" });
  const site = await startJsSite({ robots: "User-agent: *\nDisallow: /form\n", offsite: away.url + "product/3" });
  try {
    class Rules extends Spider {
      override allowedDomains = ["127.0.0.1"];
      pages: string[] = [];
      override async *start() {
        yield new Request({ url: site.url + "form", render: true });
        yield new Request({ url: site.url + "offsite", steps: [{ click: "#away" }] });
        yield new Request({ url: site.url + "redirect", render: true });
      }
      override parse(page: Page) {
        this.pages.push(page.url);
      }
    }
    const spider = new Rules();
    const { stats } = await crawl(spider, { obeyRobotsTxt: true });
    assert.deepEqual(spider.pages, [site.url + "product/2"], "only the redirect's target was rendered");
    assert.equal(site.hits("/form"), 0);
    assert.equal(away.requests.length, 0, "nothing was fetched off the site");
    assert.equal((stats.dropped as Record<string, number>).robots, 1);
    assert.equal((stats.dropped as Record<string, number>).offsite, 1);
  } finally {
    await site.close();
    await away.close();
  }
});

Deno.test("a rendered page's main document is archived and cached; a re-run renders from the cache", async () => {
  const site = await startJsSite({ products: 10, perPage: 10 });
  const dir = await mkdtemp(join(tmpdir(), "netweir-render-archive-"));
  try {
    class Cached extends Spider {
      count = 0;
      override async *start() {
        yield new Request({ url: site.url, render: true, steps: [{ wait_for: "a.product" }] });
      }
      override parse(page: Page) {
        this.count = page.css("a.product").length;
      }
    }
    const settings = { cache: join(dir, "cache"), warc: join(dir, "a.warc.gz"), har: join(dir, "a.har") };
    const first = new Cached();
    const one = await crawl(first, settings);
    assert.equal(first.count, 5);
    assert.equal(one.stats.cache_stores, 1);
    const warc = gunzipSync(await readFile(settings.warc)).toString("latin1");
    assert.match(warc, new RegExp(`WARC-Target-URI: ${site.url}\r\n`));
    assert.match(warc, /<ul id="products"><\/ul>/, "the document as sent, before its script ran");
    const har = JSON.parse(await readFile(settings.har, "utf8"));
    assert.deepEqual(har.log.entries.map((entry: { request: { url: string } }) => entry.request.url), [site.url]);

    const again = new Cached();
    const two = await crawl(again, { cache: settings.cache });
    assert.equal(again.count, 5, "rendered again, from the cached document");
    assert.equal(two.stats.cache_hits, 1);
    assert.equal(site.hits("/"), 1, "the document was fetched once in all");
  } finally {
    await site.close();
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("rules can render the pages they follow", async () => {
  const site = await startJsSite({ products: 6, perPage: 6 });
  try {
    const { Rule } = await import("../../mod.ts");
    class Ruled extends Spider {
      override startUrls = [site.url + "list/1"];
      override rules = [
        new Rule({ allow: "/product/", callback: "product" }),
      ];
      product(page: Page) {
        return { name: page.css("h1").text() };
      }
    }
    // The listing is rendered by its own rule-less start request: nothing on it without a browser.
    const plain = await crawl(new Ruled());
    assert.equal(plain.items.length, 0);
    class RenderedStart extends Ruled {
      override async *start() {
        yield new Request({ url: site.url + "list/1", steps: [{ click: "#more" }, { wait_for: "[data-loaded]" }] });
      }
    }
    const rendered = await crawl(new RenderedStart());
    assert.equal(rendered.items.length, 6);
    class RenderedRule extends Spider {
      override startUrls = [site.url + "offsite"];
      override rules = [new Rule({ allow: "/product/", callback: "product", render: true })];
      product(page: Page) {
        return { rendered: page.rendered, url: page.url };
      }
    }
    const viaRule = await crawl(new RenderedRule());
    assert.deepEqual(viaRule.items, [{ rendered: true, url: site.url + "product/1" }]);
  } finally {
    await site.close();
  }
});

Deno.test("images, fonts and media are not loaded by default, and are when browser_block is emptied", async () => {
  const site = await startJsSite();
  try {
    class Pictures extends Spider {
      width = "";
      override async *start() {
        yield new Request({ url: site.url + "images", render: true });
      }
      override parse(page: Page) {
        this.width = page.css("#size").text();
      }
    }
    const blocked = new Pictures();
    const first = await crawl(blocked);
    assert.equal(site.hits("/pixel.png"), 0);
    assert.equal(first.stats["browser.blocked"], 1);
    assert.equal(blocked.width, "0");
    const loaded = new Pictures();
    const second = await crawl(loaded, { browserBlock: [] });
    assert.equal(site.hits("/pixel.png"), 1);
    assert.equal(loaded.width, "1");
    assert.ok((second.stats["browser.bytes"] as number) > 0);
  } finally {
    await site.close();
  }
});

Deno.test("a rendered page's status and headers are its main document's", async () => {
  const site = await startJsSite();
  try {
    class Gone extends Spider {
      seen: Array<[number, string | null, string]> = [];
      override async *start() {
        yield new Request({ url: site.url + "gone", render: true, meta: { handle_httpstatus_list: [410] } });
      }
      override parse(page: Page) {
        this.seen.push([page.status, page.headers.get("x-shop"), page.css("#why").text()]);
      }
    }
    const spider = new Gone();
    await crawl(spider);
    assert.deepEqual(spider.seen, [[410, "js", "gone for good"]]);
  } finally {
    await site.close();
  }
});
