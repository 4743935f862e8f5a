/** Spider files as a user of the npm package writes them (plain JavaScript importing "netweir"). */

/**
 * The fixture shop's spider: `-a site=URL` says where the shop is; it starts at `startPath` below that URL. Its
 * callbacks have the same names as the Deno spiders' of the distributed tests, so both can share one queue.
 */
export function shopSpiderMjs(startPath = ""): string {
  return `import { Request, Spider } from "netweir";

export class Shop extends Spider {
  site = "http://127.0.0.1:1/";
  async *start() {
    yield new Request({ url: new URL(${JSON.stringify(startPath)}, this.site).href });
  }
  *parse(page) {
    for (const href of page.css("article.product_pod h3 a").attrs("href")) {
      yield page.follow(href, { callback: this.parseBook });
    }
    const next = page.css("li.next a").attr("href");
    if (next) yield page.follow(next);
  }
  parseBook(page) {
    return { title: page.css("h1").text(), url: page.url };
  }
}
`;
}
