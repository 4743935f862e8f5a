/**
 * Links resolved by string (src/spider/simple_href.ts) against the URL parser: for every generated href and base,
 * either the same href, host name and scheme as `URL.parse` gives, or no answer (the caller parses). And
 * `page.follow()`, which takes that way, makes the requests a parsed URL makes.
 */
import assert from "node:assert/strict";
import { resolveSimpleHref, simpleBase } from "../../src/spider/simple_href.ts";
import { makeResponse } from "../../src/spider/response.ts";
import { Page } from "../../src/spider/page.ts";
import { Request } from "../../src/spider/request.ts";
import { fingerprint } from "../../src/spider/fingerprint.ts";

const BASES = [
  "http://127.0.0.1:8000/p/3.html",
  "https://shop.test/",
  "http://user:pw@shop.test:81/a/b/c/?q=1#frag",
  "https://shop.test/dir/",
  "http://shop.test",
  "http://shop.test/a//b/page",
];

/** Pieces hrefs are made of: segments (dot ones among them), separators, and characters the parser treats apart. */
const PIECES = [
  "a",
  "7.html",
  ".",
  "..",
  "/",
  "//",
  "?",
  "#",
  "x=1",
  "&",
  ":",
  "@",
  "%2e",
  "%41",
  " ",
  "\\",
  "~",
  "-_",
  "!$()*+,;=",
  "'",
  '"',
  "<",
  "é",
  "\t",
  "C",
  "mailto:",
  "{",
  "^",
  "`",
  "|",
];

/** A deterministic stream of hrefs: every piece alone, every pair, and seeded random runs of up to six. */
function* hrefs(): Generator<string> {
  yield "";
  for (const a of PIECES) {
    yield a;
    for (const b of PIECES) yield a + b;
  }
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let n = 0; n < 20000; n++) {
    let href = "";
    const length = 1 + Math.floor(next() * 6);
    for (let i = 0; i < length; i++) href += PIECES[Math.floor(next() * PIECES.length)];
    yield href;
  }
}

Deno.test("a simple href resolved by string is what the URL parser makes of it, and others are left to it", () => {
  let answered = 0;
  let total = 0;
  for (const baseHref of BASES) {
    const base = simpleBase(baseHref)!;
    assert.ok(base, baseHref);
    for (const href of hrefs()) {
      total++;
      const fast = resolveSimpleHref(href, base);
      if (fast === undefined) continue;
      answered++;
      const slow = URL.parse(href, baseHref);
      assert.ok(slow, `${href} against ${baseHref}`);
      assert.deepEqual(
        { href: fast.href, hostname: fast.hostname, protocol: fast.protocol },
        { href: slow.href, hostname: slow.hostname, protocol: slow.protocol },
        `${JSON.stringify(href)} against ${baseHref}`,
      );
    }
  }
  // Most generated hrefs hold a character the string way leaves to the parser; a good share must still be answered.
  assert.ok(answered > total / 20, `${answered} of ${total} answered`);
});

Deno.test("only http(s) bases are resolved by string", () => {
  assert.equal(simpleBase("file:///tmp/a.html"), undefined);
  assert.equal(simpleBase("not a url"), undefined);
  assert.ok(simpleBase("HTTP://Shop.TEST:80/x"));
  assert.equal(resolveSimpleHref("b.html", simpleBase("HTTP://Shop.TEST:80/x/y")!)!.href, "http://shop.test/x/b.html");
});

Deno.test("follow() of simple and other hrefs makes the requests their parsed URLs make, in order", () => {
  const hrefsOfPage = [
    "./7.html",
    "7.html#reviews",
    "/p/7.html",
    "../p/7.html#top",
    "?page=2",
    "#top",
    "//o.test/x",
    "a/../../b/./c/.",
    "https://other.test/a?b=c",
    "x y.html",
    "%2e%2e/z",
    "q.html?utm_source=a&x=:",
  ];
  for (const body of ["<p>no base</p>", '<base href="/base/dir/"><p>with a base</p>']) {
    const page = new Page(makeResponse(new Request("http://127.0.0.1:8000/p/3.html?x=1"), { body }));
    const base = page.baseUrl;
    for (const href of hrefsOfPage) {
      const request = page.follow(href);
      const expected = new Request({ url: new URL(href, base).href, depth: 1 });
      assert.deepEqual(
        [request.url, request.host, request.depth, fingerprint(request)],
        [expected.url, expected.host, expected.depth, fingerprint(expected)],
        href,
      );
    }
  }
});
