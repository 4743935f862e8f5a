/** A spider started from sitemaps (C6), crawled end to end against sitemaps served on 127.0.0.1. */
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { Crawl, type Item, type Page, resolveCrawlSettings, Settings, Spider } from "../../mod.ts";
import { decodeRequest, encodeRequest } from "../../src/queue/codec.ts";
import { Request } from "../../src/spider/request.ts";
import { runtime } from "../../src/runtime/mod.ts";
import { createLogger } from "../../src/log.ts";

/** robots.txt -> an index -> a gzipped product sitemap and a blog sitemap; products and posts as pages. */
async function serveSitemapSite() {
  const hits: string[] = [];
  const listener = await runtime.listen((request) => {
    const { pathname } = new URL(request.url);
    hits.push(pathname);
    const xml = (body: string) => new Response(body, { headers: { "content-type": "application/xml" } });
    if (pathname === "/robots.txt") return new Response(`User-agent: *\nSitemap: ${origin}/sitemap_index.xml\n`);
    if (pathname === "/sitemap_index.xml") {
      return xml(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
        <sitemap><loc>${origin}/sitemap-products.xml.gz</loc></sitemap>
        <sitemap><loc>${origin}/sitemap-blog.xml</loc></sitemap></sitemapindex>`);
    }
    if (pathname === "/sitemap-products.xml.gz") {
      const urls = [1, 2, 3].map((n) => `<url><loc>${origin}/product/${n}</loc></url>`).join("");
      const body = gzipSync(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}
        <url><loc>${origin}/about</loc></url></urlset>`);
      return new Response(new Uint8Array(body), { headers: { "content-type": "application/gzip" } });
    }
    if (pathname === "/sitemap-blog.xml") return xml(`<urlset><url><loc>${origin}/post/1</loc></url></urlset>`);
    const product = /^\/product\/(\d+)$/.exec(pathname);
    if (product) {
      return new Response(`<html><h1>Product ${product[1]}</h1></html>`, { headers: { "content-type": "text/html" } });
    }
    return new Response(`<html><h1>${pathname}</h1></html>`, { headers: { "content-type": "text/html" } });
  }, { hostname: "127.0.0.1", port: 0 });
  const origin = `http://127.0.0.1:${listener.port}`;
  return { origin, hits, close: () => listener.close() };
}

Deno.test("a spider started from a robots.txt crawls the sitemaps it names, by sitemapFollow and sitemapRules", async () => {
  const site = await serveSitemapSite();
  try {
    class Products extends Spider {
      override sitemapUrls = [`${site.origin}/robots.txt`];
      override sitemapFollow = [/products/];
      override sitemapRules: Spider["sitemapRules"] = [["/product/", this.parseProduct]];
      parseProduct(page: Page) {
        return { title: page.css("h1").text(), url: page.url };
      }
    }
    const items: Item[] = [];
    const settings = resolveCrawlSettings({
      overrides: new Settings({ minDelay: 0, autothrottle: false, progress: false, obeyRobotsTxt: true }),
    });
    const stats = await new Crawl(new Products(), {
      settings,
      log: createLogger("error", () => {}),
      sink: { write: (batch) => Promise.resolve(void items.push(...batch)), close: () => Promise.resolve() },
    }).run();
    assert.equal(stats.finish_reason, "finished");
    assert.deepEqual(items.map((item) => item.title).sort(), ["Product 1", "Product 2", "Product 3"]);
    assert.ok(!site.hits.includes("/sitemap-blog.xml"), "sitemapFollow left the blog sitemap out");
    assert.ok(!site.hits.includes("/about"), "no rule matched /about");
    assert.equal(stats.errors ?? 0, 0);
  } finally {
    await site.close();
  }
});

Deno.test("sitemap requests travel in a shared queue: _sitemap and rule callbacks go by name", () => {
  class Products extends Spider {
    parseProduct(_page: Page) {}
  }
  const spider = new Products();
  const sitemap = decodeRequest(
    spider,
    encodeRequest(spider, new Request({ url: "https://a.example/s.xml", callback: "_sitemap" })),
  );
  assert.equal(sitemap.callback, "_sitemap");
  const product = decodeRequest(
    spider,
    encodeRequest(spider, new Request({ url: "https://a.example/p", callback: spider.parseProduct })),
  );
  assert.equal(product.callback, "parseProduct");
});
