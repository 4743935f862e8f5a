/**
 * A shop on 127.0.0.1 whose product pages change their markup partway through: from product `brokenFrom` on, the
 * title is in a `<div class="name">` where the first ones have `<h1 class="title">`, as when a site is redesigned in
 * the middle of a night's crawl. `/` links to every product.
 */

/** A running shop: its URL, how many requests it answered, and how to stop it. */
export interface BreakingShop {
  url: string;
  hits(): number;
  close(): Promise<void>;
}

/** Starts a shop of `products` product pages (10 unless given) whose titles break from `brokenFrom` on. */
export function startBreakingShop(brokenFrom = Infinity, products = 10): BreakingShop {
  let hits = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    hits++;
    const path = new URL(request.url).pathname;
    const html = (body: string) => new Response(body, { headers: { "content-type": "text/html" } });
    if (path === "/") {
      return html(Array.from({ length: products }, (_, i) => `<a href="/p/${i + 1}">${i + 1}</a>`).join("\n"));
    }
    const match = /^\/p\/(\d+)$/.exec(path);
    if (!match) return new Response("not here", { status: 404 });
    const n = Number(match[1]);
    const title = n >= brokenFrom ? `<div class="name">Book ${n}</div>` : `<h1 class="title">Book ${n}</h1>`;
    return html(`${title}<p class="price">${n}.50</p>`);
  });
  return { url: `http://127.0.0.1:${server.addr.port}/`, hits: () => hits, close: () => server.shutdown() };
}

/**
 * The spider the tests crawl it with, as a file's source: follows every product and yields its title (undefined when
 * the selector finds none) and price. `mod` is the URL of Netweir's mod.ts; `extra` adds class members.
 */
export function breakingShopSpider(mod: string, start: string, extra = ""): string {
  return `import { type Page, Settings, Spider } from ${JSON.stringify(mod)};
export class Shop extends Spider {
  override startUrls = [${JSON.stringify(start)}];
  ${extra}
  override *parse(page: Page) {
    for (const href of page.css("a").attrs("href")) yield page.follow(href, { callback: this.parseProduct });
  }
  parseProduct(page: Page) {
    const title = page.css("h1.title").text();
    return { url: page.url, title: title === "" ? undefined : title, price: Number(page.css(".price").text()) };
  }
}
`;
}
