import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { makeResponse } from "../../src/spider/response.ts";
import { Page } from "../../src/spider/page.ts";
import { Request } from "../../src/spider/request.ts";
import { type SitemapOptions, sitemapRequests } from "../../src/spider/sitemap.ts";

const ALL: SitemapOptions = { rules: [["", "parse"]], follow: [""], alternateLinks: false };

function page(url: string, body: string | Uint8Array): Page {
  return new Page(makeResponse(new Request({ url }), { body }));
}

const urls = (requests: Request[]) => requests.map((request) => request.url);
const callbacks = (requests: Request[]) => requests.map((request) => request.callback);

const URLSET = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">
  <url><loc>https://shop.example/product/1</loc><lastmod>2026-01-01</lastmod>
    <xhtml:link rel="alternate" hreflang="de" href="https://shop.example/de/product/1"/></url>
  <url><loc> https://shop.example/about </loc></url>
  <url><loc>ftp://shop.example/file</loc></url>
  <url><loc>/relative/page</loc></url>
</urlset>`;

Deno.test("a robots.txt leads to each sitemap its Sitemap: lines name", () => {
  const robots = "User-agent: *\nDisallow: /x\nSitemap: https://shop.example/sitemap_index.xml\nsitemap:/s2.xml\n";
  const requests = sitemapRequests(page("https://shop.example/robots.txt", robots), ALL);
  assert.deepEqual(urls(requests), ["https://shop.example/sitemap_index.xml", "https://shop.example/s2.xml"]);
  assert.deepEqual(callbacks(requests), ["_sitemap", "_sitemap"]);
});

Deno.test("a sitemap index leads to the sitemaps sitemapFollow matches", () => {
  const index = `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
    <sitemap><loc>https://shop.example/sitemap-products.xml.gz</loc></sitemap>
    <sitemap><loc>https://shop.example/sitemap-blog.xml</loc></sitemap>
  </sitemapindex>`;
  assert.deepEqual(urls(sitemapRequests(page("https://shop.example/i.xml", index), ALL)).length, 2);
  const products = sitemapRequests(page("https://shop.example/i.xml", index), { ...ALL, follow: [/products/] });
  assert.deepEqual(urls(products), ["https://shop.example/sitemap-products.xml.gz"]);
  assert.deepEqual(callbacks(products), ["_sitemap"]);
});

Deno.test("a sitemap's URLs go to the callback of the first rule that matches, others are left out", () => {
  const options: SitemapOptions = {
    rules: [["/product/", "parseProduct"], [/about$/, "parseAbout"]],
    follow: [""],
    alternateLinks: false,
  };
  const requests = sitemapRequests(page("https://shop.example/sitemap.xml", URLSET), options);
  assert.deepEqual(urls(requests), ["https://shop.example/product/1", "https://shop.example/about"]);
  assert.deepEqual(callbacks(requests), ["parseProduct", "parseAbout"]);
});

Deno.test("by default every http(s) URL goes to parse, relative ones resolved; alternates only when asked", () => {
  const all = sitemapRequests(page("https://shop.example/sitemap.xml", URLSET), ALL);
  assert.deepEqual(urls(all), [
    "https://shop.example/product/1",
    "https://shop.example/about",
    "https://shop.example/relative/page",
  ]);
  const alternates = sitemapRequests(page("https://shop.example/sitemap.xml", URLSET), {
    ...ALL,
    alternateLinks: true,
  });
  assert.ok(urls(alternates).includes("https://shop.example/de/product/1"));
});

Deno.test("a gzipped sitemap is read as it is sent", () => {
  const requests = sitemapRequests(page("https://shop.example/sitemap.xml.gz", gzipSync(URLSET)), ALL);
  assert.equal(requests.length, 3);
});

Deno.test("a page that is no sitemap is a TypeError saying what it is", () => {
  assert.throws(
    () => sitemapRequests(page("https://shop.example/x.xml", "<html><body>hi</body></html>"), ALL),
    /not a sitemap.*<html>/,
  );
  assert.throws(
    () => sitemapRequests(page("https://shop.example/x.xml.gz", new Uint8Array([0x1f, 0x8b, 1, 2])), ALL),
    /not a readable sitemap/,
  );
});
