/**
 * A small online book shop, generated: the same shape as books.toscrape.com, so the selectors a newcomer writes for
 * the real site (`article.product_pod h3 a`, `li.next a`, `h1`, `.price_color`, `.availability`, the product table)
 * work on it unchanged. Everything is a pure function of the path and the number of books: the same call always
 * gives the same page, which is what the tests, the static copy in examples/site and the demo rely on.
 *
 * Pages:
 * - `/` and `/catalogue/page-N.html`: 20 books a page, with a `li.next` link until the last page
 *   (`/index.html` answers as `/`, because book pages link home through it, as on the real site);
 * - `/catalogue/SLUG_ID/index.html`: one book, with price, stock and a product table with its UPC.
 */

/** Books on one listing page, as on books.toscrape.com. */
export const BOOKS_PER_PAGE = 20;

/** One generated book. */
export interface ShopBook {
  /** 1-based, part of the slug. */
  id: number;
  title: string;
  /** `the-title-words_ID`: the folder of the book's page under /catalogue/. */
  slug: string;
  /** In pence, to keep the arithmetic exact. */
  pricePence: number;
  /** `£51.77`. */
  price: string;
  /** How many are in stock (1 to 22). */
  stock: number;
  /** 16 hex digits. */
  upc: string;
  /** One to Five, as the real site's `star-rating` class. */
  rating: string;
  description: string;
}

/** A page as a server would send it. */
export interface ShopResponse {
  status: number;
  contentType: string;
  body: string;
}

const HTML = "text/html; charset=utf-8";
const RATINGS = ["One", "Two", "Three", "Four", "Five"];
const ADJECTIVES = [
  "Silent",
  "Crimson",
  "Hidden",
  "Last",
  "Golden",
  "Broken",
  "Wandering",
  "Forgotten",
  "Bright",
  "Quiet",
  "Little",
  "Endless",
  "Midnight",
  "Paper",
  "Winter",
  "Secret",
  "Wild",
  "Distant",
  "Hollow",
  "Northern",
];
const NOUNS = [
  "Garden",
  "River",
  "Lighthouse",
  "Orchard",
  "Cartographer",
  "Library",
  "Harbour",
  "Clockmaker",
  "Atlas",
  "Meadow",
  "Fox",
  "Archive",
  "Kingdom",
  "Violin",
  "Compass",
  "Lantern",
  "Island",
  "Tower",
  "Beekeeper",
  "Station",
];
const PLACES = ["the Attic", "Paris", "the Hills", "Winter", "the Valley", "Glass", "the North", "Summer"];

/** mulberry32: a tiny seeded generator, so a book's details depend on its id alone. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(next: () => number, list: readonly T[]): T {
  return list[Math.floor(next() * list.length)];
}

function plural(noun: string): string {
  return /(s|x)$/.test(noun) ? `${noun}es` : `${noun}s`;
}

function slugify(title: string): string {
  return title.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function checkBooks(books: number): void {
  if (!Number.isInteger(books) || books < 0) {
    throw new RangeError(`books must be a whole number of 0 or more, got ${books}`);
  }
}

/** The book with this id (1-based). Deterministic: the same id always gives the same book. */
export function shopBook(id: number): ShopBook {
  if (!Number.isInteger(id) || id < 1) throw new RangeError(`book id must be a whole number of 1 or more, got ${id}`);
  const next = random(id * 7919);
  const adjective = pick(next, ADJECTIVES);
  const noun = pick(next, NOUNS);
  const shapes = [
    `The ${adjective} ${noun}`,
    `${noun} of the ${adjective} ${pick(next, NOUNS)}`,
    `A ${adjective} ${noun} in ${pick(next, PLACES)}`,
    `${adjective} ${plural(noun)} & Other Stories`,
  ];
  const title = shapes[Math.floor(next() * shapes.length)];
  const pricePence = 1000 + Math.floor(next() * 5000);
  const upcHigh = Math.floor(next() * 0x100000000).toString(16).padStart(8, "0");
  const upcLow = Math.floor(next() * 0x100000000).toString(16).padStart(8, "0");
  return {
    id,
    title,
    slug: `${slugify(title)}_${id}`,
    pricePence,
    price: `£${(pricePence / 100).toFixed(2)}`,
    stock: 1 + Math.floor(next() * 22),
    upc: upcHigh + upcLow,
    rating: pick(next, RATINGS),
    description:
      `${title} is book number ${id} of this shop: a story about the ${adjective.toLowerCase()} ${noun.toLowerCase()}.`,
  };
}

/** How many listing pages a shop of `books` books has (at least one, even when empty). */
export function shopPageCount(books: number): number {
  checkBooks(books);
  return Math.max(1, Math.ceil(books / BOOKS_PER_PAGE));
}

/** Every page of the shop: `/`, each `/catalogue/page-N.html`, each book page. */
export function shopPaths(books: number): string[] {
  const paths = ["/"];
  for (let page = 1; page <= shopPageCount(books); page++) paths.push(`/catalogue/page-${page}.html`);
  for (let id = 1; id <= books; id++) paths.push(`/catalogue/${shopBook(id).slug}/index.html`);
  return paths;
}

/** `home` is the relative link to the front page, so the shop works under any path prefix. */
function layout(title: string, home: string, main: string): string {
  return `<!DOCTYPE html>
<html lang="en-gb">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)} | Netweir Book Shop</title>
</head>
<body>
<header class="page_inner"><div class="col-sm-8 h1"><a href="${home}">Netweir Book Shop</a></div></header>
<div class="container-fluid page">
${main}
</div>
</body>
</html>
`;
}

/** A listing page. `prefix` is how its links reach /catalogue/: `catalogue/` from `/`, nothing from inside. */
function listingPage(page: number, books: number, prefix: string): string {
  const pages = shopPageCount(books);
  const first = (page - 1) * BOOKS_PER_PAGE + 1;
  const last = Math.min(books, page * BOOKS_PER_PAGE);
  const pods: string[] = [];
  for (let id = first; id <= last; id++) {
    const book = shopBook(id);
    const href = `${prefix}${book.slug}/index.html`;
    pods.push(`<li class="col-xs-6 col-sm-4 col-md-3 col-lg-3">
<article class="product_pod">
<p class="star-rating ${book.rating}"></p>
<h3><a href="${href}" title="${escapeHtml(book.title)}">${escapeHtml(book.title)}</a></h3>
<div class="product_price">
<p class="price_color">${book.price}</p>
<p class="instock availability">In stock</p>
</div>
</article>
</li>`);
  }
  const pager: string[] = [];
  if (page > 1) pager.push(`<li class="previous"><a href="${prefix}page-${page - 1}.html">previous</a></li>`);
  pager.push(`<li class="current">Page ${page} of ${pages}</li>`);
  if (page < pages) pager.push(`<li class="next"><a href="${prefix}page-${page + 1}.html">next</a></li>`);
  const main = `<div class="page-header action"><h1>All products</h1></div>
<form class="form-horizontal"><strong>${books}</strong> results - showing <strong>${first > last ? 0 : first}</strong>
to <strong>${last}</strong>.</form>
<section>
<ol class="row">
${pods.join("\n")}
</ol>
<div><ul class="pager">
${pager.join("\n")}
</ul></div>
</section>`;
  const title = page === 1 ? "All products" : `All products | Page ${page}`;
  return layout(title, prefix ? "index.html" : "../index.html", main);
}

function bookPage(book: ShopBook): string {
  const main = `<ul class="breadcrumb">
<li><a href="../../index.html">Home</a></li>
<li><a href="../page-1.html">All products</a></li>
<li class="active">${escapeHtml(book.title)}</li>
</ul>
<article class="product_page">
<div class="row">
<div class="col-sm-6 product_main">
<h1>${escapeHtml(book.title)}</h1>
<p class="price_color">${book.price}</p>
<p class="instock availability">In stock (${book.stock} available)</p>
<p class="star-rating ${book.rating}"></p>
</div>
</div>
<div id="product_description" class="sub-header"><h2>Product Description</h2></div>
<p>${escapeHtml(book.description)}</p>
<div class="sub-header"><h2>Product Information</h2></div>
<table class="table table-striped">
<tr><th>UPC</th><td>${book.upc}</td></tr>
<tr><th>Product Type</th><td>Books</td></tr>
<tr><th>Price (excl. tax)</th><td>${book.price}</td></tr>
<tr><th>Price (incl. tax)</th><td>${book.price}</td></tr>
<tr><th>Tax</th><td>£0.00</td></tr>
<tr><th>Availability</th><td>In stock (${book.stock} available)</td></tr>
<tr><th>Number of reviews</th><td>0</td></tr>
</table>
</article>`;
  return layout(book.title, "../../index.html", main);
}

function notFound(path: string): ShopResponse {
  const main = `<h1>Not found</h1>\n<p>There is no page at ${escapeHtml(path)}.</p>`;
  return { status: 404, contentType: HTML, body: layout("Not found", "/", main) };
}

/**
 * The page at `path` (an absolute path; any query or fragment is ignored) of a shop of `books` books, or a 404
 * page. Pure: the same arguments always give the same answer.
 */
export function shopPage(path: string, books: number): ShopResponse {
  checkBooks(books);
  const pathname = path.replace(/[?#].*$/, "");
  if (pathname === "/" || pathname === "/index.html") {
    return { status: 200, contentType: HTML, body: listingPage(1, books, "catalogue/") };
  }
  const listing = /^\/catalogue\/page-([1-9][0-9]*)\.html$/.exec(pathname);
  if (listing) {
    const page = Number(listing[1]);
    if (page > shopPageCount(books)) return notFound(pathname);
    return { status: 200, contentType: HTML, body: listingPage(page, books, "") };
  }
  const product = /^\/catalogue\/([a-z0-9-]+)_([1-9][0-9]*)\/index\.html$/.exec(pathname);
  if (product) {
    const id = Number(product[2]);
    if (id > books) return notFound(pathname);
    const book = shopBook(id);
    // The slug must be the book's own, or every misspelt slug would be a duplicate page.
    if (book.slug !== `${product[1]}_${id}`) return notFound(pathname);
    return { status: 200, contentType: HTML, body: bookPage(book) };
  }
  return notFound(pathname);
}
