import assert from "node:assert/strict";
import { type Page, Request, Spider } from "../../mod.ts";
import { startJsSite } from "../helpers/js_site.ts";
import { crawl } from "../helpers/crawl_in_process.ts";

/** The steps that show every product of a listing page: click "Load more", wait until the rest is in. */
const LOAD_ALL = [{ click: "#more" }, { wait_for: "body[data-loaded=all]" }];

class JsShop extends Spider {
  constructor(readonly first: string, readonly render: boolean) {
    super();
  }
  override async *start() {
    yield this.render ? new Request({ url: this.first, render: true, steps: LOAD_ALL }) : new Request(this.first);
  }
  override *parse(page: Page) {
    for (const href of page.css("a.product").attrs("href")) yield page.follow(href, { callback: this.product });
    const next = page.css("#next").attr("href");
    if (next) yield page.follow(next, this.render ? { render: true, steps: LOAD_ALL } : {});
  }
  product(page: Page) {
    return { name: page.css("h1").text(), url: page.url };
  }
}

Deno.test("a rendered crawl clicks Load more and gets every product exactly once; plain HTTP gets none", async () => {
  const site = await startJsSite({ products: 40, perPage: 10 });
  try {
    const rendered = await crawl(new JsShop(site.url, true));
    const names = rendered.items.map((item) => item.name as string).sort();
    const expected = Array.from({ length: 40 }, (_, i) => `Product ${i + 1}`).sort();
    assert.deepEqual(names, expected);
    assert.equal(rendered.stats.pages, 4 + 40);
    assert.ok((rendered.stats["browser.requests"] as number) >= 8, "the listings' API calls are counted");
    for (let id = 1; id <= 40; id++) assert.equal(site.hits(`/product/${id}`), 1);

    const plain = await crawl(new JsShop(site.url, false));
    assert.equal(plain.items.length, 0);
  } finally {
    await site.close();
  }
});
