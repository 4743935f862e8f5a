/**
 * The spider every Scrapy tutorial teaches, against the link shop (scripts/bench/link_shop.ts): an item from each
 * product page, and every link of every page followed, the duplicate filter dropping the repeats.
 *
 *   deno run -A cli.ts crawl scripts/bench/shop_css_spider.ts -a site=http://127.0.0.1:8000/ -o items.jsonl
 */
import { type Page, Request, Spider } from "../../mod.ts";

export class ShopCss extends Spider {
  site = "http://127.0.0.1:8000/";

  override allowedDomains = ["127.0.0.1"];

  override async *start() {
    yield new Request({ url: this.site });
  }

  override *parse(page: Page) {
    if (page.url.includes("/p/")) {
      yield { title: page.css("h1").text(), price: page.css(".price").text(), url: page.url };
    }
    for (const href of page.css("a").attrs("href")) yield page.follow(href);
  }
}
