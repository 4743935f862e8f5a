/**
 * The pages' fast paths against the slow ones: `css()` of one tag answered from a scan of the text against the same
 * selector on the DOM, `links()` from a scan against the links of the DOM, `follow()` of a parsed link against a
 * request built from its URL. Same elements, same attributes, same order, same requests, on markup that trips
 * parsers up.
 */
import assert from "node:assert/strict";
import { parseDocument } from "htmlparser2";
import { selectAll } from "css-select";
import * as DomUtils from "domutils";
import { type Element, isTag } from "domhandler";
import { makeResponse } from "../../src/spider/response.ts";
import { Page } from "../../src/spider/page.ts";
import { Request } from "../../src/spider/request.ts";
import { fingerprint } from "../../src/spider/fingerprint.ts";
import { scanElements } from "../../src/spider/element_scan.ts";
import type { Selection } from "../../src/spider/selection.ts";
import { AWKWARD_PAGES as PAGES } from "../helpers/awkward_html.ts";

/** css-select with names compared in lower case, as selection.ts asks it. */
const SELECT_OPTIONS = {
  adapter: { ...DomUtils, isTag, getName: (element: Element) => element.name.toLowerCase() },
};

const URL_OF_PAGE = "http://127.0.0.1/dir/page.html";

function page(body: string | Uint8Array, headers?: Record<string, string>): Page {
  return new Page(makeResponse(new Request(URL_OF_PAGE), { body, headers }));
}

/** A page whose DOM is built before anything is asked of it: every selector goes the slow way. */
function domPage(body: string | Uint8Array, headers?: Record<string, string>): Page {
  const p = page(body, headers);
  assert.ok(p.document);
  return p;
}

const SELECTORS = [
  "a",
  "A",
  "a[href]",
  "a[title]",
  "a[href][title]",
  "a::attr(href)",
  "a[href]::attr(title)",
  "area",
  "base",
  "img",
  "image",
  "form",
  "input",
  "p",
  "br",
  "link",
  "template",
  "clippath",
  "title",
];

const ATTRIBUTES = ["href", "title", "id", "src", "action", "HREF", "download", "constructor"];

/** Everything a callback can read of a selection without its text, as one value to compare. */
function readable(selection: Selection, p: Page) {
  return {
    length: selection.length,
    attrs: ATTRIBUTES.map((name) => selection.attrs(name)),
    attr: ATTRIBUTES.map((name) => selection.attr(name)),
    texts: selection.mode.kind === "attr" ? selection.texts() : undefined,
    text: selection.mode.kind === "attr" ? selection.text() : undefined,
    each: [...selection].map((one) => [one.length, one.attr("href"), one.attr("id")]),
    last: selection.get(-1).attr("href"),
    second: selection.get(1.7).attr("href"),
    outside: selection.get(99).length,
    follow: p.followAll(selection).map((request) => request.url),
  };
}

for (const [name, html] of Object.entries(PAGES)) {
  Deno.test(`css() of one tag reads the same as the DOM's answer: ${name}`, () => {
    for (const selector of SELECTORS) {
      const fast = page(html);
      const slow = domPage(html);
      assert.deepEqual(readable(fast.css(selector), fast), readable(slow.css(selector), slow), selector);
      const scanned = !["p", "br", "template", "clippath", "title"].includes(selector);
      assert.equal(fast.domBuilt, false, `${selector} was answered with a DOM`);
      assert.equal(fast.lightBuilt, !scanned, `${selector} was answered ${scanned ? "without" : "with"} a scan`);
    }
  });

  Deno.test(`a scanned selection asked for text, HTML or more finds the same elements in the DOM: ${name}`, () => {
    for (const selector of SELECTORS) {
      const fast = page(html);
      const slow = domPage(html);
      const mine = fast.css(selector);
      const theirs = slow.css(selector);
      assert.deepEqual(mine.get(-1).html(), theirs.get(-1).html(), selector);
      assert.deepEqual(mine.texts(), theirs.texts(), selector);
      assert.deepEqual(mine.elements.map((e) => e.attribs), theirs.elements.map((e) => e.attribs), selector);
      assert.deepEqual(mine.css("::attr(href)").texts(), theirs.css("::attr(href)").texts(), selector);
      assert.deepEqual(mine.css("*").length, theirs.css("*").length, selector);
    }
  });

  Deno.test(`links() and the base URL from the scan are those of the DOM: ${name}`, () => {
    const fast = page(html);
    const slow = domPage(html);
    assert.deepEqual(fast.links(), slow.links());
    assert.equal(fast.baseUrl, slow.baseUrl);
    assert.equal(fast.domBuilt, false);
  });

  Deno.test(`the scan finds each name's elements with the DOM's attributes, in order: ${name}`, () => {
    const document = parseDocument(html);
    for (const tag of ["a", "area", "base", "img", "image", "form", "p", "br", "input", "title", "clippath"]) {
      const scanned = scanElements(html, new Set([tag]));
      const inDom = selectAll(tag, document, SELECT_OPTIONS);
      assert.deepEqual(scanned.map((element) => element.attribs), inDom.map((element) => element.attribs), tag);
    }
  });
}

Deno.test("a selector the scan cannot answer exactly goes to the light document, or with pseudo-classes to the DOM", () => {
  for (const selector of ["a.x", "div a", "a, area", "a[href^='/']", "*", "a::text", "h1", "p", "div > a + a ~ a"]) {
    const p = page(PAGES.broken);
    p.css(selector);
    assert.equal(p.lightBuilt, true, selector);
    assert.equal(p.domBuilt, false, selector);
  }
  for (const selector of ["a:first-child", "p:empty", "a:not(.x)", "div:has(a)"]) {
    const p = page(PAGES.broken);
    p.css(selector);
    assert.equal(p.domBuilt, true, selector);
  }
});

Deno.test("past three scans a page parses itself for the next selector", () => {
  const p = page(PAGES.uppercase);
  for (const tag of ["img", "link", "script"]) p.css(tag).attrs("href");
  assert.equal(p.domBuilt, false);
  assert.deepEqual(p.css("a").attrs("href"), ["/Upper"], "a came with the first scan");
  assert.deepEqual(p.css("area").attrs("href"), ["/area"], "and area");
  assert.equal(p.domBuilt, false);
  assert.deepEqual(p.css("meta").attrs("content"), []);
  assert.equal(p.lightBuilt, true);
  assert.equal(p.domBuilt, false);
});

Deno.test("the natural spider's two ways follow the same links, in the same order, as the DOM's", () => {
  for (const html of Object.values(PAGES)) {
    const viaCss = (p: Page) =>
      p.css("a").attrs("href").flatMap((href) => {
        try {
          return [p.follow(href).url];
        } catch {
          return [];
        }
      });
    assert.deepEqual(viaCss(page(html)), viaCss(domPage(html)));
    const viaLinks = (p: Page) => p.links().map((url) => p.follow(url).url);
    assert.deepEqual(viaLinks(page(html)), viaLinks(domPage(html)));
  }
});

Deno.test("a non-UTF-8 page's links and selections are the same either way, queries in the page's encoding", () => {
  // Shift_JIS: 日本 is 93FA 967B; the page says so in its Content-Type.
  const bytes = new Uint8Array([
    ...new TextEncoder().encode('<a href="/s?q='),
    0x93,
    0xfa,
    0x96,
    0x7b,
    ...new TextEncoder().encode('#f" title=x>j</a><a href="/plain">p</a>'),
  ]);
  const headers = { "content-type": "text/html; charset=shift_jis" };
  const fast = page(bytes, headers);
  const slow = domPage(bytes, headers);
  assert.deepEqual(fast.links(), ["http://127.0.0.1/s?q=%93%FA%96%7B", "http://127.0.0.1/plain"]);
  assert.deepEqual(fast.links(), slow.links());
  assert.deepEqual(fast.css("a").attrs("href"), slow.css("a").attrs("href"));
  const follow = (p: Page) => p.css("a").attrs("href").map((href) => p.follow(href).url);
  assert.deepEqual(follow(fast), ["http://127.0.0.1/s?q=%93%FA%96%7B#f", "http://127.0.0.1/plain"]);
  assert.deepEqual(follow(fast), follow(slow));
  assert.equal(fast.domBuilt, false);
});

Deno.test("a followed link's request is the one its URL makes: same URL, host, depth and fingerprint", () => {
  const p = page(PAGES.base);
  for (const url of p.links()) {
    const followed = p.follow(url, { meta: { a: 1 } });
    const built = new Request({ url, meta: { a: 1 }, depth: 1 });
    assert.deepEqual(
      [followed.url, followed.host, followed.depth, followed.meta, fingerprint(followed)],
      [built.url, built.host, built.depth, built.meta, fingerprint(built)],
    );
    // The fingerprint of the request is the one of its plain description (what the Redis queue stores).
    assert.equal(fingerprint(followed), fingerprint({ method: "GET", url: followed.url }));
  }
});
