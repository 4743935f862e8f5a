/**
 * The link shop's spider written with `page.links()` (every link of the page, resolved, without a DOM) instead of
 * `page.css("a")`: otherwise the same as scripts/bench/shop_css_spider.ts.
 *
 *   deno run -A cli.ts crawl scripts/bench/shop_links_spider.ts -a site=http://127.0.0.1:8000/ -o items.jsonl
 */
import { type Page, Request, Spider } from "../../mod.ts";

export class ShopLinks extends Spider {
  site = "http://127.0.0.1:8000/";

  override allowedDomains = ["127.0.0.1"];

  override async *start() {
    yield new Request({ url: this.site });
  }

  override *parse(page: Page) {
    if (page.url.includes("/p/")) {
      yield { title: page.css("h1").text(), price: page.css(".price").text(), url: page.url };
    }
    for (const url of page.links()) yield page.follow(url);
  }
}
