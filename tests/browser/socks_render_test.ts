/**
 * Rendered pages through a SOCKS proxy: Chromium's own requests go through it as the crawl's HTTP requests do, and
 * a SOCKS proxy with a login, which Chromium cannot log in to, fails the rendered request with one line saying so.
 */
import assert from "node:assert/strict";
import { type Page, Request, Spider } from "../../mod.ts";
import { startJsSite } from "../helpers/js_site.ts";
import { startSocks4a } from "../helpers/socks_proxy.ts";
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

Deno.test("a SOCKS proxy with a login fails a rendered request with one line naming it without its password", async () => {
  const site = await startJsSite({ products: 10, perPage: 10 });
  const proxy = await startSocks4a();
  try {
    const spider = new Rendered(site.url);
    const { lines } = await crawl(spider, { proxies: [`socks5h://user:hidden-pw@${proxy.address}`] });
    assert.equal(spider.links.length, 0);
    const said = lines.filter((line) => line.includes("Chromium cannot log in to a SOCKS proxy"));
    assert.ok(said.length >= 1, lines.join("\n"));
    assert.match(said[0], new RegExp(`socks5h://user@${proxy.address}\\)`));
    assert.ok(lines.every((line) => !line.includes("hidden-pw")));
    assert.deepEqual(proxy.targets, []);
  } finally {
    await proxy.kill();
    await site.close();
  }
});
