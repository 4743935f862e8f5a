/**
 * A shop whose pages link the way real templates do, generated in memory for scripts/bench/follow_cost.ts: product
 * pages of about 10 KB with about 24 links each (related products linked twice, as image and as title; links spelled
 * relative, `./`, root-relative and absolute, with `#fragments` and `utm_*` parameters, an uppercase tag), listing
 * pages of 20 products behind a `<base href>`, category pages. Everything is a pure function of the path.
 */

/** The shop's origin (never resolved: the benchmark answers every request itself). */
export const SHOP = "http://shop.test";

const CATEGORIES = 20;
const PER_LISTING = 20;

export function productPath(id: number): string {
  return `/catalogue/p${id}/index.html`;
}

const FILLER = `<div class="description"><p>${
  "A product page carries text around its links: a description, reviews, the small print. ".repeat(90)
}</p></div>
<script type="text/javascript">var basket = { items: [], add: function (i) { this.items.push(i); } };</script>`;

function layout(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<link rel="stylesheet" href="/static/shop.css"><script src="/static/shop.js"></script></head>
<body><header><a href="/">Home</a> <a href="../../index.html">Index</a> <a href="#top">Top</a>
<a href="/catalogue/category/c1/index.html?utm_source=header&amp;utm_medium=nav">Offers</a></header>
<div class="page">${body}</div>
<footer><a href="${SHOP}/about.html">About</a> <a href="/about.html#contact">Contact</a></footer>${FILLER}</body></html>`;
}

/** Eight related products, each linked twice (image and title), spelled each way a template writes them. */
function related(id: number, products: number): string {
  const out: string[] = [];
  for (let k = 1; k <= 8; k++) {
    const other = ((id - 1 + k * 7) % products) + 1;
    const spelled = [
      `../p${other}/index.html`,
      `./../p${other}/index.html#reviews`,
      `/catalogue/p${other}/index.html`,
      `${SHOP}/catalogue/p${other}/index.html`,
    ][k % 4];
    const tracked = k === 8 ? `${spelled.replace(/#.*/, "")}?utm_source=related&amp;utm_medium=web` : spelled;
    out.push(`<li><a href="${spelled}"><img src="/media/${other}.jpg" alt=""></a>`);
    out.push(`<h3><A HREF='${tracked}' title="Product ${other}">Product ${other}</A></h3></li>`);
  }
  return `<ul class="related">${out.join("\n")}</ul>`;
}

/** The page at `url` (absolute, on SHOP) of a shop of `products` products, or undefined for a 404. */
export function shopPage(url: string, products: number): string | undefined {
  const { pathname } = new URL(url, SHOP);
  let match = /^\/catalogue\/p(\d+)\/index\.html$/.exec(pathname);
  if (match) {
    const id = Number(match[1]);
    if (id > products) return undefined;
    const category = (id % CATEGORIES) + 1;
    return layout(
      `Product ${id}`,
      `<ul class="breadcrumb"><li><a href="../../index.html">Home</a></li>
<li><a href="../category/c${category}/index.html">Category ${category}</a></li></ul>
<h1>Product ${id}</h1><p class="price">£${(id % 90) + 10}.99</p>${related(id, products)}`,
    );
  }
  match = /^\/catalogue\/category\/c(\d+)\/index\.html$/.exec(pathname);
  if (match) {
    const category = Number(match[1]);
    const items = [];
    for (let id = category; id <= products && items.length < PER_LISTING; id += CATEGORIES) {
      items.push(`<li><a href="../../p${id}/index.html">Product ${id}</a></li>`);
    }
    return layout(`Category ${category}`, `<ul>${items.join("")}</ul>`);
  }
  match = /^\/catalogue\/page-(\d+)\.html$/.exec(pathname);
  const listing = pathname === "/" || pathname === "/index.html" ? 1 : match ? Number(match[1]) : 0;
  if (listing > 0) {
    const first = (listing - 1) * PER_LISTING + 1;
    const items = [];
    for (let id = first; id < first + PER_LISTING && id <= products; id++) {
      items.push(`<li><a href="${productPath(id).slice(1)}">Product ${id}</a></li>`);
    }
    const next = first + PER_LISTING <= products ? `<a href="/catalogue/page-${listing + 1}.html">next</a>` : "";
    return layout(`Page ${listing}`, `<base href="${SHOP}/"><ul>${items.join("")}</ul>${next}`);
  }
  if (pathname === "/about.html") return layout("About", "<p>About us</p>");
  return undefined;
}
