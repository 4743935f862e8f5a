/**
 * A spider for the shared queue's benchmarks that yields about 25 links a page, most of them seen before: the
 * shop's listings as examples/books.ts crawls them, and on each book page links to the 24 books after it (what a
 * "readers also bought" box gives a real crawl). Run against the generated shop (scripts/bench/shop_server.ts) with
 * `-a books=N` saying how many books it has.
 */
import { shopBook } from "../../examples/shop.ts";
import { Books } from "../../examples/books.ts";
import type { Page } from "../../mod.ts";

export class LinkyBooks extends Books {
  /** How many books the shop has (`-a books=N`): links go round to the first book after the last. */
  books = "3000";

  override *parse(page: Page) {
    for (const href of page.css("article.product_pod h3 a").attrs("href")) {
      yield page.follow(href, { callback: this.parseLinkedBook });
    }
    const next = page.css("li.next a").attr("href");
    if (next) yield page.follow(next);
  }

  /** A book page: its item, and links to the next 24 books. */
  *parseLinkedBook(page: Page) {
    yield this.parseBook(page);
    const id = Number(/_(\d+)\/index\.html$/.exec(page.url)?.[1]);
    const total = Number(this.books);
    if (!Number.isInteger(id) || !(total > 0)) return;
    for (let k = 1; k <= 24; k++) {
      const other = shopBook(((id - 1 + k) % total) + 1);
      yield page.follow(`../${other.slug}/index.html`, { callback: this.parseLinkedBook });
    }
  }
}
