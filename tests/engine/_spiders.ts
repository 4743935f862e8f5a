/** Spiders the engine tests run against the fixture site. */
import { type CallbackResult, type Page, Request, Spider } from "../../mod.ts";

/** Crawls the fixture shop: every listing page, every book page, one item per book. */
export class ShopSpider extends Spider {
  constructor(readonly start_url: string) {
    super();
  }
  override async *start() {
    yield new Request({ url: this.start_url });
  }
  override *parse(page: Page) {
    for (const href of page.css("article.product_pod h3 a").attrs("href")) {
      yield page.follow(href, { callback: this.parseBook });
    }
    const next = page.css("li.next a").attr("href");
    if (next) yield page.follow(next);
  }
  parseBook(page: Page) {
    return { title: page.css("h1").text(), price: page.css("p.price_color").text(), url: page.url };
  }
}

/** Fetches the given URLs (start requests) and records what it saw. */
export class ListSpider extends Spider {
  seen: Array<{ url: string; status: number; depth: number }> = [];
  failures: string[] = [];
  constructor(readonly urls: Array<string | Request>) {
    super();
  }
  override async *start() {
    for (const url of this.urls) yield typeof url === "string" ? new Request({ url, errback: this.failed }) : url;
  }
  override parse(page: Page): CallbackResult {
    this.seen.push({ url: page.url, status: page.status, depth: page.depth });
    return { url: page.url };
  }
  failed(failure: { error: Error; request: Request }) {
    this.failures.push(`${failure.request.url}: ${failure.error.name}`);
  }
}

/** Follows every link of every page it gets. */
export class FollowAllSpider extends Spider {
  constructor(readonly start_url: string) {
    super();
  }
  override async *start() {
    yield new Request({ url: this.start_url });
  }
  override parse(page: Page) {
    return page.followAll(page.links());
  }
}
