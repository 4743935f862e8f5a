/**
 * A real HTTP site on 127.0.0.1 for `render: "auto"`, with three kinds of page of which one needs a browser: listing
 * pages (`/list/N`) whose product links and "next" link an inline script builds from data in the page, as a
 * client-rendered shop does; product pages (`/product/ID`) and maker pages (`/maker/ID`), plain HTML. With
 * `scriptFrom`, products from that id on build their content by script too: a kind that starts needing JavaScript
 * part way through a crawl. Every request is logged. Used by tests/browser/render_auto_test.ts and
 * scripts/bench/render.ts.
 */
import { runtime } from "../../src/runtime/mod.ts";

export interface AutoSiteOptions {
  /** Products in the shop (default 40). */
  products?: number;
  /** Products per listing page (default 10). */
  perPage?: number;
  /** Products per maker (default 5). */
  perMaker?: number;
  /** The first product id whose page is built by script (default: none is). */
  scriptFrom?: number;
}

export interface AutoSite {
  /** The first listing page. */
  start: string;
  origin: string;
  products: number;
  listings: number;
  makers: number;
  /** How many requests a path received. */
  hits(path: string): number;
  /** Every request path received, in order. */
  requests: string[];
  close(): Promise<void>;
}

const page = (title: string, body: string) =>
  new Response(
    `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`,
    { headers: { "content-type": "text/html; charset=utf-8" } },
  );

/** The product's fields, the same whether the page carries them as HTML or builds them by script. */
function product(id: number, perMaker: number) {
  return { name: `Product ${id}`, price: (id * 1.25).toFixed(2), maker: Math.ceil(id / perMaker) };
}

function listing(number: number, ids: number[], last: boolean): string {
  const data = JSON.stringify({ ids, next: last ? null : `/list/${number + 1}` });
  return `<h1>Listing ${number}</h1><ul id="products"></ul><nav id="pager"></nav>
<script>
const data = ${data};
for (const id of data.ids) {
  const item = document.createElement("li");
  item.innerHTML = '<a class="product" href="/product/' + id + '">Product ' + id + '</a>';
  document.getElementById("products").append(item);
}
if (data.next) document.getElementById("pager").innerHTML = '<a id="next" href="' + data.next + '">next</a>';
</script>`;
}

function productHtml(id: number, perMaker: number): string {
  const { name, price, maker } = product(id, perMaker);
  return `<h1 class="name">${name}</h1><p class="price">${price}</p><a class="maker" href="/maker/${maker}">Maker ${maker}</a>`;
}

function productScript(id: number, perMaker: number): string {
  return `<div id="app"></div><script>document.getElementById("app").innerHTML = ${
    JSON.stringify(productHtml(id, perMaker))
  };</script>`;
}

/** Starts the site on a free port of 127.0.0.1. */
export async function startAutoSite(options: AutoSiteOptions = {}): Promise<AutoSite> {
  const products = options.products ?? 40;
  const perPage = options.perPage ?? 10;
  const perMaker = options.perMaker ?? 5;
  const scriptFrom = options.scriptFrom ?? Infinity;
  const listings = Math.max(1, Math.ceil(products / perPage));
  const makers = Math.ceil(products / perMaker);
  const requests: string[] = [];
  const handle = (request: Request): Response => {
    const path = new URL(request.url).pathname;
    requests.push(path);
    const [, kind, number] = /^\/(list|product|maker)\/(\d+)$/.exec(path) ?? [];
    const id = Number(number);
    if (kind === "list" && id >= 1 && id <= listings) {
      const ids = [];
      for (let at = (id - 1) * perPage + 1; at <= Math.min(products, id * perPage); at++) ids.push(at);
      return page(`Listing ${id}`, listing(id, ids, id === listings));
    }
    if (kind === "product" && id >= 1 && id <= products) {
      return page(`Product ${id}`, id >= scriptFrom ? productScript(id, perMaker) : productHtml(id, perMaker));
    }
    if (kind === "maker" && id >= 1 && id <= makers) return page(`Maker ${id}`, `<h1 class="maker">Maker ${id}</h1>`);
    if (path === "/robots.txt") return new Response("User-agent: *\nDisallow:\n");
    return new Response("not found", { status: 404 });
  };
  const listener = await runtime.listen(handle, { hostname: "127.0.0.1", port: 0 });
  const origin = `http://127.0.0.1:${listener.port}`;
  return {
    start: `${origin}/list/1`,
    origin,
    products,
    listings,
    makers,
    requests,
    hits: (path) => requests.filter((seen) => seen === path).length,
    close: () => listener.close(),
  };
}
