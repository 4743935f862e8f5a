/**
 * The spider to run first: every book of a books.toscrape.com-shaped shop, one item per book.
 *
 *   deno run -A cli.ts crawl examples/books.ts -O books.jsonl                                   # the real site
 *   deno run -A cli.ts crawl examples/books.ts -a site=http://127.0.0.1:8000/ -O books.jsonl    # a local copy
 *
 * `deno task demo` serves the copy in examples/site and runs this spider against it.
 */
import { type Contracts, type Page, Request, Spider } from "../mod.ts";

export class Books extends Spider {
  /** Where the shop is; `-a site=URL` points the spider at another copy of it. */
  site = "https://books.toscrape.com/";

  /**
   * What each callback must give, checked by `netweir check examples/books.ts -a site=URL` (URLs relative to the
   * site; the book is one of the local copy's, examples/site): a listing page yields its 20 books and the next page,
   * a book page one item with every field.
   */
  static contracts: Contracts = {
    parse: { url: "", items: 0, requests: 21 },
    parseBook: {
      url: "catalogue/the-paper-compass_1/index.html",
      items: 1,
      requests: 0,
      fields: ["title", "price", "availability", "upc", "url"],
    },
  };

  override async *start() {
    yield new Request({ url: this.site });
  }

  /** A listing page: every book on it, then the next listing page. */
  override *parse(page: Page) {
    for (const href of page.css("article.product_pod h3 a").attrs("href")) {
      yield page.follow(href, { callback: this.parseBook });
    }
    const next = page.css("li.next a").attr("href");
    if (next) yield page.follow(next);
  }

  /** A book page: one item. */
  parseBook(page: Page) {
    return {
      title: page.css(".product_main h1").text(),
      price: page.css(".product_main .price_color").text(),
      availability: page.css(".product_main .availability").text(),
      upc: productInfo(page, "UPC"),
      url: page.url,
    };
  }
}

/** A value of the product table (`<tr><th>UPC</th><td>...</td></tr>`). */
function productInfo(page: Page, label: string): string | undefined {
  for (const row of page.css("table tr")) {
    if (row.css("th").text() === label) return row.css("td").text();
  }
  return undefined;
}
