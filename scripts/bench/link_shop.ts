/**
 * A shop for crawling the way tutorials teach it: every page's links followed, the duplicate filter left to drop
 * the repeats. Each product page carries about 27 links, most of them seen before and spelled every way real
 * templates spell them:
 *
 * - the navigation (home and five categories) and the footer, root-relative, on every page;
 * - a breadcrumb back to the product's listing, relative with `../`;
 * - eight related products, each linked twice (image and title): `./7.html`, `7.html#reviews`, `/p/7.html`,
 *   `http://127.0.0.1:PORT/p/7.html`, `../p/7.html#top`;
 * - a banner and a footer link with `utm_*` parameters, which a crawler that keeps queries (as Scrapy and
 *   Netweir do) fetches as pages of their own: two extra pages in all, not one per product.
 *
 * Listing pages hold 20 products (image and title links) and a pager. The pages are padded with the text a real
 * product page has (a description, reviews), to about 11 KB.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

export const CATEGORIES = ["books", "music", "games", "garden", "kitchen"];
const PER_LISTING = 20;
const RELATED = 8;
const PAGE_TARGET_BYTES = 11 * 1024;

export interface LinkShop {
  /** Product pages (`/p/N.html`, N from 1). */
  products: number;
  /** Every distinct page a crawler that drops fragments and keeps queries reaches from `/`. */
  pages: number;
  /** Bytes of HTML written. */
  bytes: number;
}

/** The listing page (per category, from 1) that shows `id`, and its category. */
function listingOf(id: number, products: number): { category: string; page: number } {
  const perCategory = Math.ceil(products / CATEGORIES.length);
  const index = Math.floor((id - 1) / perCategory);
  return { category: CATEGORIES[index], page: Math.floor(((id - 1) % perCategory) / PER_LISTING) + 1 };
}

function navigation(): string {
  const categories = CATEGORIES.map((name) => `<li><a href="/c/${name}/1.html">${name}</a></li>`).join("\n      ");
  return `<header class="navbar">
    <a class="brand" href="/">The Link Shop</a>
    <ul class="nav">
      ${categories}
    </ul>
    <div class="banner"><a href="/p/1.html?utm_source=banner&amp;utm_medium=web">Deal of the day</a></div>
  </header>`;
}

const FOOTER = `<footer class="footer">
    <ul>
      <li><a href="/about.html">About us</a></li>
      <li><a href="/contact.html">Contact</a></li>
      <li><a href="/?utm_source=footer">Back to the shop</a></li>
    </ul>
    <p>Prices and stock are invented: this shop exists so that crawlers have something to read.</p>
  </footer>`;

const HEAD = ["bootstrap.min", "shop"].map((name) => `<link rel="stylesheet" href="/static/${name}.css">`)
  .concat(["jquery.min", "shop"].map((name) => `<script src="/static/${name}.js"></script>`))
  .join("\n  ");

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${title} | The Link Shop</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  ${HEAD}
</head>
<body>
  ${navigation()}
  <main class="container">
${body}
  </main>
  ${FOOTER}
</body>
</html>
`;
}

const SENTENCE = "This product is made to last, ships in a plain box and comes with a two year warranty. ";

/** Reviews and a description that bring a page to about PAGE_TARGET_BYTES, as real product text does. */
function padding(id: number, used: number): string {
  const reviews: string[] = [];
  let size = used;
  for (let n = 1; size < PAGE_TARGET_BYTES; n++) {
    const review = `    <div class="review" data-stars="${(id + n) % 5 + 1}">
      <span class="author">Customer ${(id * 7 + n) % 997}</span> <span class="date">2026-0${n % 9 + 1}-1${n % 9}</span>
      <p>${SENTENCE.repeat(3)}</p>
    </div>`;
    reviews.push(review);
    size += review.length;
  }
  return `  <section id="reviews">\n${reviews.join("\n")}\n  </section>`;
}

export function productPage(id: number, products: number, origin: string): string {
  const { category, page: listing } = listingOf(id, products);
  const spellings = [
    (other: number) => `${other}.html#reviews`,
    (other: number) => `/p/${other}.html`,
    (other: number) => `${origin}/p/${other}.html`,
    (other: number) => `../p/${other}.html#top`,
  ];
  const related: string[] = [];
  for (let k = 1; k <= RELATED; k++) {
    const other = ((id - 1 + k) % products) + 1;
    related.push(`      <li class="related">
        <a href="./${other}.html"><img src="/img/${other}.jpg" alt="Product ${other}"></a>
        <a href="${spellings[k % spellings.length](other)}">Product ${other}</a>
      </li>`);
  }
  const body = `    <ul class="breadcrumb"><li><a href="../c/${category}/${listing}.html">${category}</a></li></ul>
    <article class="product">
      <h1>Product ${id}</h1>
      <p class="price">£${(id % 90 + 10).toFixed(2)}</p>
      <p class="stock">${id % 7 === 0 ? "Out of stock" : "In stock"}</p>
      <div class="description"><p>${SENTENCE.repeat(4)}</p></div>
    </article>
    <h2>Customers also bought</h2>
    <ul class="related-products">
${related.join("\n")}
    </ul>`;
  const html = page(`Product ${id}`, body);
  return html.replace("  </main>", `${padding(id, html.length)}\n  </main>`);
}

function listingPage(category: string, number: number, last: number, first: number, count: number): string {
  const items: string[] = [];
  for (let id = first; id < first + count; id++) {
    items.push(`      <li class="product-pod">
        <a href="../../p/${id}.html"><img src="/img/${id}.jpg" alt="Product ${id}"></a>
        <h3><a href="/p/${id}.html#title">Product ${id}</a></h3>
        <p class="price">£${(id % 90 + 10).toFixed(2)}</p>
      </li>`);
  }
  const pager = [
    number > 1 ? `<li class="previous"><a href="./${number - 1}.html">previous</a></li>` : "",
    `<li class="first"><a href="1.html">1</a></li>`,
    number < last ? `<li class="next"><a href="${number + 1}.html">next</a></li>` : "",
    `<li class="last"><a href="/c/${category}/${last}.html">${last}</a></li>`,
  ].filter((item) => item !== "").join("\n      ");
  return page(
    `${category}, page ${number}`,
    `    <h1>${category}</h1>
    <ol class="products">
${items.join("\n")}
    </ol>
    <ul class="pager">
      ${pager}
    </ul>`,
  );
}

/** Writes a shop of `products` product pages to `root`, whose links name `origin` (`http://127.0.0.1:PORT`). */
export async function writeLinkShop(root: string, products: number, origin: string): Promise<LinkShop> {
  let bytes = 0;
  let pages = 0;
  const write = async (path: string, html: string) => {
    const file = join(root, path);
    await mkdir(join(file, ".."), { recursive: true });
    await writeFile(file, html);
    bytes += html.length;
    pages++;
  };
  const home = CATEGORIES.map((name) => `    <p><a href="c/${name}/1.html">Shop ${name}</a></p>`).join("\n");
  await write("index.html", page("Home", `    <h1>Welcome</h1>\n${home}`));
  await write("about.html", page("About us", "    <h1>About us</h1>\n    <p>We sell invented things.</p>"));
  await write("contact.html", page("Contact", "    <h1>Contact</h1>\n    <p>Write to us.</p>"));
  const perCategory = Math.ceil(products / CATEGORIES.length);
  for (const [index, category] of CATEGORIES.entries()) {
    const first = index * perCategory + 1;
    const count = Math.max(0, Math.min(perCategory, products - first + 1));
    const last = Math.max(1, Math.ceil(count / PER_LISTING));
    for (let number = 1; number <= last; number++) {
      const from = first + (number - 1) * PER_LISTING;
      await write(
        `c/${category}/${number}.html`,
        listingPage(category, number, last, from, Math.min(PER_LISTING, first + count - from)),
      );
    }
  }
  for (let id = 1; id <= products; id++) await write(`p/${id}.html`, productPage(id, products, origin));
  // `/?utm_source=footer` and `/p/1.html?utm_source=banner&utm_medium=web` are pages of their own.
  return { products, pages: pages + 2, bytes };
}
