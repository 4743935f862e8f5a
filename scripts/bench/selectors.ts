/**
 * What a product page of the link shop costs a callback that reads it as tutorials do: `css("h1").text()`,
 * `css(".price").text()` and `css("a").attrs("href")`, from the light document (what a page does), from the DOM
 * (`page.document` built first, the way every selector went before the light document), and the floors under both: a
 * SAX pass of htmlparser2 collecting the same things (what the bare loop of crawl.ts does), the parser alone, and
 * `parseDocument` alone. In-process, no network. Prints; asserts nothing.
 *
 *   deno run -A scripts/bench/selectors.ts [PAGES=2000] [ROUNDS=5]
 */
import { parseDocument, Parser } from "htmlparser2";
import { makeResponse } from "../../src/spider/response.ts";
import { Page } from "../../src/spider/page.ts";
import { Request } from "../../src/spider/request.ts";
import { productPage } from "./link_shop.ts";
import { scan } from "./sax_scan.mjs";

const count = Number(Deno.args[0] ?? 2000);
const rounds = Number(Deno.args[1] ?? 5);
const ORIGIN = "http://127.0.0.1:8000";
const pages = Array.from({ length: count }, (_, i) => productPage(i + 1, count, ORIGIN));
const bodies = pages.map((html) => new TextEncoder().encode(html));
const headers = { "content-type": "text/html; charset=utf-8" };

function pageOf(i: number): Page {
  const request = new Request(`${ORIGIN}/p/${i + 1}.html`);
  return new Page(makeResponse(request, { body: bodies[i], headers }));
}

function read(page: Page): unknown {
  return [page.css("h1").text(), page.css(".price").text(), page.css("a").attrs("href")];
}

const cases: Record<string, (i: number) => unknown> = {
  "page, light document": (i) => read(pageOf(i)),
  "page, DOM first": (i) => {
    const page = pageOf(i);
    void page.document;
    return read(page);
  },
  "SAX pass (the bare loop's)": (i) => scan(new TextDecoder().decode(bodies[i])),
  "parser, no handler": (i) => new Parser({}).end(new TextDecoder().decode(bodies[i])),
  "parseDocument": (i) => parseDocument(new TextDecoder().decode(bodies[i])),
};

console.log(
  `${count} product pages of the link shop, ${(bodies[0].length / 1024).toFixed(1)} KB each, ${rounds} rounds`,
);
for (const [name, run] of Object.entries(cases)) {
  for (let i = 0; i < count; i++) run(i); // warm-up: the optimising compilers have their turn first
  const start = performance.now();
  for (let round = 0; round < rounds; round++) for (let i = 0; i < count; i++) run(i);
  const micros = (performance.now() - start) * 1000 / (rounds * count);
  console.log(`${name.padEnd(28)} ${micros.toFixed(1).padStart(7)} µs a page`);
}
