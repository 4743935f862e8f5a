/**
 * Rendered pages through a SOCKS proxy: Chromium's own requests go through it as the crawl's HTTP requests do, and
 * through a SOCKS proxy with a login, which Chromium cannot log in to, by way of a relay on 127.0.0.1 that does.
 */
import assert from "node:assert/strict";
import { type Page, Request, Spider } from "../../mod.ts";
import { startJsSite } from "../helpers/js_site.ts";
import { startMicrosocks, startSocks4a } from "../helpers/socks_proxy.ts";
import { crawl } from "../helpers/crawl_in_process.ts";

class Rendered extends Spider {
  links: string[] = [];
  constructor(readonly url: string) {
    super();
  }
  override async *start() {
    yield new Request({ url: this.url, render: true, steps: [{ wait_for: "a.product" }] });
  }
  override parse(page: Page) {
    this.links = page.css("a.product").attrs("href");
  }
}

Deno.test("a rendered request goes through a socks4a proxy: its document and the page's own requests", async () => {
  const site = await startJsSite({ products: 10, perPage: 10 });
  const proxy = await startSocks4a();
  try {
    const spider = new Rendered(site.url);
    await crawl(spider, { proxies: [`socks4a://${proxy.address}`] });
    assert.equal(spider.links.length, 5);
    assert.ok(proxy.requests.includes("GET / HTTP/1.1"), proxy.requests.join("\n"));
    assert.ok(proxy.requests.some((line) => line.startsWith("GET /api/products")), proxy.requests.join("\n"));
  } finally {
    await proxy.kill();
    await site.close();
  }
});

Deno.test("a rendered request goes through a SOCKS5 proxy with a login, which a relay logs in to for Chromium", async () => {
  const site = await startJsSite({ products: 10, perPage: 10 });
  const proxy = await startMicrosocks({ user: "render", password: "hidden-pw" });
  try {
    const spider = new Rendered(site.url);
    // Chromium sends every request through its proxy, loopback too ("<-loopback>"), and never directly instead:
    // the page's script fetched its products only if the relay logged in to microsocks, which wants the login.
    const { lines, stats } = await crawl(spider, { proxies: [`socks5h://render:hidden-pw@${proxy.address}`] });
    assert.equal(spider.links.length, 5, lines.join("\n"));
    assert.equal(stats.pages, 1);
    assert.ok(lines.every((line) => !line.includes("hidden-pw")));
    await proxy.kill();
    const again = new Rendered(site.url + "?again");
    await crawl(again, { proxies: [`socks5h://render:hidden-pw@${proxy.address}`], retries: 0 });
    assert.equal(again.links.length, 0, "nothing renders once the proxy is gone");
  } finally {
    await proxy.kill();
    await site.close();
  }
});
