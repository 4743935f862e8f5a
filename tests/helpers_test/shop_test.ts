import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { BOOKS_PER_PAGE, shopBook, shopPage, shopPageCount, shopPaths } from "../../examples/shop.ts";
import { fileForPath, SITE_BOOKS, SITE_DIR } from "../../scripts/gen_site.ts";

const count = (html: string, pattern: RegExp) => html.match(pattern)?.length ?? 0;
const PODS = /<article class="product_pod">/g;

function nextHref(html: string): string | undefined {
  return /<li class="next"><a href="([^"]+)">next<\/a><\/li>/.exec(html)?.[1];
}

Deno.test("every listing page but the last has 20 books and a next link to the following page", () => {
  const books = 55;
  assert.equal(shopPageCount(books), 3);
  const front = shopPage("/", books);
  assert.equal(front.status, 200);
  assert.equal(front.contentType, "text/html; charset=utf-8");
  assert.equal(count(front.body, PODS), BOOKS_PER_PAGE);
  assert.equal(nextHref(front.body), "catalogue/page-2.html");
  const second = shopPage("/catalogue/page-2.html", books);
  assert.equal(count(second.body, PODS), 20);
  assert.equal(nextHref(second.body), "page-3.html");
  assert.match(second.body, /<li class="previous"><a href="page-1.html">previous<\/a><\/li>/);
  const last = shopPage("/catalogue/page-3.html", books);
  assert.equal(count(last.body, PODS), 15);
  assert.equal(nextHref(last.body), undefined);
  assert.equal(shopPage("/catalogue/page-4.html", books).status, 404);
});

Deno.test("listing links are relative like the real site's and lead to the books' own pages", () => {
  const front = shopPage("/", 40).body;
  const inner = shopPage("/catalogue/page-2.html", 40).body;
  const frontLinks = [...front.matchAll(/<h3><a href="([^"]+)" title="([^"]+)">/g)];
  assert.equal(frontLinks[0][1], `catalogue/${shopBook(1).slug}/index.html`);
  const innerLinks = [...inner.matchAll(/<h3><a href="([^"]+)"/g)].map((match) => match[1]);
  assert.equal(innerLinks[0], `${shopBook(21).slug}/index.html`);
  for (const href of innerLinks) {
    const path = new URL(href, "http://shop.test/catalogue/page-2.html").pathname;
    assert.equal(shopPage(path, 40).status, 200, path);
  }
});

Deno.test("a book page has its title, price, stock, UPC and relative links home", () => {
  const book = shopBook(7);
  const page = shopPage(`/catalogue/${book.slug}/index.html`, 10);
  assert.equal(page.status, 200);
  const title = book.title.replace(/&/g, "&amp;");
  assert.match(page.body, new RegExp(`<h1>${title}</h1>`));
  assert.match(page.body, /<p class="price_color">£\d+\.\d\d<\/p>/);
  assert.ok(page.body.includes(`<p class="price_color">${book.price}</p>`));
  assert.ok(page.body.includes(`<p class="instock availability">In stock (${book.stock} available)</p>`));
  assert.ok(page.body.includes(`<tr><th>UPC</th><td>${book.upc}</td></tr>`));
  assert.match(book.upc, /^[0-9a-f]{16}$/);
  assert.ok(page.body.includes('<a href="../../index.html">Home</a>'));
  assert.equal(shopPage("/index.html", 10).body, shopPage("/", 10).body);
});

Deno.test("the shop is deterministic, and unknown or mistyped paths are 404 pages", () => {
  assert.deepEqual(shopBook(42), shopBook(42));
  assert.equal(shopPage("/catalogue/page-2.html", 100).body, shopPage("/catalogue/page-2.html?x=1", 100).body);
  assert.equal(shopPage("/nowhere", 10).status, 404);
  assert.equal(shopPage(`/catalogue/${shopBook(11).slug}/index.html`, 10).status, 404, "past the last book");
  assert.equal(shopPage(`/catalogue/wrong-slug_3/index.html`, 10).status, 404);
  assert.throws(() => shopPage("/", -1), RangeError);
  assert.throws(() => shopBook(0), RangeError);
});

Deno.test("shopPaths lists the front page, every listing page and every book, each answering 200", () => {
  const paths = shopPaths(300);
  assert.equal(paths.length, 1 + 15 + 300);
  assert.equal(new Set(paths).size, paths.length);
  for (const path of paths) assert.equal(shopPage(path, 300).status, 200, path);
  assert.deepEqual(shopPaths(0), ["/", "/catalogue/page-1.html"]);
});

Deno.test("the committed examples/site is what the generator makes now", async () => {
  const paths = shopPaths(SITE_BOOKS);
  for (const path of paths) {
    const file = await readFile(join(SITE_DIR, fileForPath(path)), "utf8");
    assert.equal(file, shopPage(path, SITE_BOOKS).body, `${path} is stale: run deno run -A scripts/gen_site.ts`);
  }
});
