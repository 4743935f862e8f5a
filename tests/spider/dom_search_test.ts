/**
 * src/spider/dom_search.ts: css-select's answers, found by a walk whose cost grows with the page's size alone.
 */
import assert from "node:assert/strict";
import { compile, selectAll } from "css-select";
import { type AnyNode, type Element, isTag } from "domhandler";
import * as DomUtils from "domutils";
import { parseDocument } from "htmlparser2";
import { makeResponse } from "../../src/spider/response.ts";
import { Page } from "../../src/spider/page.ts";
import { Request } from "../../src/spider/request.ts";
import { searchAll } from "../../src/spider/dom_search.ts";
import { AWKWARD_PAGES } from "../helpers/awkward_html.ts";
import render from "dom-serializer";
import { SkippingTokenizer } from "../../src/spider/skipping_tokenizer.ts";
import { withCachedDescendants } from "../../src/spider/descendant_cache.ts";

const OPTIONS = { adapter: { ...DomUtils, isTag, getName: (element: { name: string }) => element.name.toLowerCase() } };

const SELECTORS = [
  "*",
  "div",
  "a[href]",
  "li:first-child",
  "p:last-of-type",
  "ul > li",
  "h1 + p",
  "h1 ~ *",
  "body a",
  "div:not(.x) span",
  ":empty",
  "template",
  "template a",
  "svg clipPath",
];

const LISTS = `<html><body><h1>t</h1><p class=x>a <span>s</span></p><div class=x><span>no</span></div>
  <ul><li>1</li><li><ul><li>2.1</li></ul></li></ul><p></p><div><p>in</p><p>last</p></div></body></html>`;

Deno.test("finds what css-select's selectAll finds, in the same order, from a document and from elements", () => {
  let found = 0;
  const pages = [...Object.values(AWKWARD_PAGES), LISTS];
  for (const html of pages) {
    const document = parseDocument(html);
    const elements = selectAll("div, ul, body, p", document, OPTIONS);
    for (const css of SELECTORS) {
      const expected = selectAll(css, document, OPTIONS);
      assert.deepEqual(searchAll(css, document, OPTIONS), expected, css);
      assert.deepEqual(searchAll(css, [...elements], OPTIONS), selectAll(css, [...elements], OPTIONS), css);
      found += expected.length;
    }
    // Relative selectors, compiled against the elements they are searched from.
    const starts = selectAll("ul, h1", document, OPTIONS);
    for (const css of ["> li", "+ p", "~ *", ":scope li"]) {
      assert.deepEqual(searchAll(css, [...starts], OPTIONS), selectAll(css, [...starts], OPTIONS), css);
    }
  }
  assert.ok(found > 100, `only ${found} elements compared`);
});

/**
 * Two pages of the same bytes and the same elements, each div the first child of an i: nested `count` pairs deep, and
 * side by side. Every selector below matches as many elements on both.
 */
function pages(count: number): { nested: string; flat: string } {
  const nested = `<html><body>${"<i><div>".repeat(count)}x${"</div></i>".repeat(count)}</body></html>`;
  const flat = `<html><body>${"<i><div></div></i>".repeat(count)}x</body></html>`;
  assert.equal(nested.length, flat.length);
  return { nested, flat };
}

/**
 * css-select's adapter with every call counted: the work a search does, read without a clock. A search that is
 * linear in the page asks as much of a page nested deep as of a flat one with the same elements; one that walks the
 * ancestors of every element asks depth times more.
 */
function countingAdapter(): {
  options: { adapter: typeof OPTIONS.adapter };
  calls: () => number;
  parents: () => number;
} {
  let calls = 0;
  let parents = 0;
  const adapter: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(OPTIONS.adapter) as Array<[string, unknown]>) {
    if (typeof value !== "function") {
      adapter[name] = value;
      continue;
    }
    const fn = value as (...args: unknown[]) => unknown;
    adapter[name] = (...args: unknown[]) => {
      calls++;
      if (name === "getParent") parents++;
      return fn(...args);
    };
  }
  return { options: { adapter: adapter as typeof OPTIONS.adapter }, calls: () => calls, parents: () => parents };
}

/** The DOM of `html` as a page builds it. */
function domOf(html: string) {
  const page = new Page(makeResponse(new Request("http://127.0.0.1/"), { body: html }));
  return page.document;
}

/** How many elements each test saw and how many adapter calls the search made, for `css` on `html`'s DOM. */
function searchWork(html: string, css: string, cached = true) {
  const counting = countingAdapter();
  const compiled = compile<AnyNode, Element>(cached ? withCachedDescendants(css) : css, counting.options);
  let tested = 0;
  const query = Object.assign((element: Element) => {
    tested++;
    return compiled(element);
  }, { shouldTestNextSiblings: (compiled as { shouldTestNextSiblings?: boolean }).shouldTestNextSiblings });
  const found = searchAll(query, domOf(html), counting.options).length;
  return { found, tested, calls: counting.calls(), parents: counting.parents() };
}

Deno.test("a selector on a page nested 60,000 deep tests each element once and asks no more than on a flat page", () => {
  const count = 30_000;
  const { nested, flat } = pages(count);
  for (const selector of ["div", "div:first-child", "i > div"]) {
    const deep = searchWork(nested, selector);
    const side = searchWork(flat, selector);
    assert.equal(deep.found, count, selector);
    assert.equal(side.found, count, selector);
    // The walk goes by the nodes' own links, each element once: css-select's own kept a stack it copied at every
    // step (16 minutes at 40,000 deep), and tested as many elements.
    assert.equal(deep.tested, side.tested, selector);
    assert.ok(
      deep.calls <= 2 * side.calls + 100,
      `${selector}: ${deep.calls} adapter calls nested, ${side.calls} flat`,
    );
  }
});

Deno.test("descendant selectors find on a page, from the DOM and from the light document, what css-select finds", () => {
  const selectors = ["body a", "div span", "ul li", "html body p", "body > div span", "ul li li", "svg a", "* *"];
  let found = 0;
  for (const html of [...Object.values(AWKWARD_PAGES), LISTS]) {
    const document = parseDocument(html, { Tokenizer: SkippingTokenizer });
    for (const css of selectors) {
      const expected = selectAll(css, document, OPTIONS).map((element) => render(element));
      const light = new Page(makeResponse(new Request("http://127.0.0.1/"), { body: html }));
      assert.deepEqual(light.css(css).elements.map((element) => render(element)), expected, css);
      const dom = new Page(makeResponse(new Request("http://127.0.0.1/"), { body: html }));
      dom.document;
      assert.deepEqual(dom.css(css).elements.map((element) => render(element)), expected, css);
      found += expected.length;
    }
  }
  assert.ok(found > 50, `only ${found} elements compared`);
});

Deno.test("a descendant selector asks for as many parents on a page nested 60,000 deep as on a flat page", () => {
  const count = 30_000;
  const { nested, flat } = pages(count);
  for (const selector of ["body div", "html body i div"]) {
    // As selection.ts and light_select.ts compile it: withCachedDescendants lets css-select remember, for each
    // ancestor, whether it or one above it matched, so each parent is asked about once.
    const deep = searchWork(nested, selector);
    const side = searchWork(flat, selector);
    assert.equal(deep.found, count, selector);
    assert.equal(side.found, count, selector);
    assert.ok(
      deep.parents <= 3 * side.parents + 100,
      `${selector}: ${deep.parents} parents nested, ${side.parents} flat`,
    );
    // The page and the light document answer the same on the deep page.
    for (const dom of [false, true]) {
      const page = new Page(makeResponse(new Request("http://127.0.0.1/"), { body: nested }));
      if (dom) page.document;
      assert.equal(page.css(selector).length, count, `${selector} (${dom ? "DOM" : "light document"})`);
    }
  }
  // The count tells: compiled as css-select compiles it alone, each div walks up to the body (30,000 x 30,000 steps
  // was 31 s at 40,000 deep), here on a page 2,000 deep.
  const small = pages(2_000);
  const walked = searchWork(small.nested, "body div", false);
  const flatWalk = searchWork(small.flat, "body div", false);
  assert.ok(walked.parents > 100 * flatWalk.parents, `${walked.parents} parents nested, ${flatWalk.parents} flat`);
});

Deno.test("css() on a fresh page nested 100,000 deep, parse included, takes about as long as on a flat page", () => {
  // The case, smaller: a page of nested divs asked for div:first-child, the DOM built by the call.
  const { nested: deep, flat } = pages(50_000);
  const time = (html: string) => {
    let ms = Infinity;
    for (let run = 0; run < 3; run++) {
      const page = new Page(makeResponse(new Request("http://127.0.0.1/"), { body: html }));
      const start = performance.now();
      page.css("div:first-child").length;
      ms = Math.min(ms, performance.now() - start);
    }
    return ms;
  };
  const nested = time(deep);
  const side = time(flat);
  const ratio = nested / side;
  console.log(
    `css("div:first-child") on a fresh page: ${nested.toFixed(0)} ms nested, ${side.toFixed(0)} ms flat, ratio ${
      ratio.toFixed(1)
    }`,
  );
  // Before: the parse and the search both quadratic in the depth (12 times here for the parse alone, 16 minutes and
  // more for 20 MB). The bound is wide because eight people share this machine's two cores.
  assert.ok(ratio < 8, `nested ${nested} ms against flat ${side} ms`);
});
