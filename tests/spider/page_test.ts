import assert from "node:assert/strict";
import { makeResponse } from "../../src/spider/response.ts";
import { Page, RELEASE_DERIVED } from "../../src/spider/page.ts";
import { Request } from "../../src/spider/request.ts";

function page(
  body: string | Uint8Array,
  options: { url?: string; headers?: Record<string, string>; request?: Request } = {},
): Page {
  const request = options.request ?? new Request(options.url ?? "http://127.0.0.1/dir/page.html");
  return new Page(makeResponse(request, { body, headers: options.headers, url: options.url }));
}

/** Latin-1 bytes of a text (each character one byte). */
function latin1(text: string): Uint8Array {
  return Uint8Array.from(text, (ch) => ch.charCodeAt(0));
}

Deno.test("a page carries the response's final URL, status, headers and body and the request's meta, cbKwargs and depth", () => {
  const request = new Request({ url: "http://127.0.0.1/start", meta: { a: 1 }, cbKwargs: { b: 2 }, depth: 3 });
  const response = makeResponse(request, {
    status: 404,
    url: "http://127.0.0.1/final",
    headers: { "x-test": "yes" },
    body: "hi",
  });
  const p = new Page(response);
  assert.equal(p.url, "http://127.0.0.1/final");
  assert.equal(p.status, 404);
  assert.equal(p.headers.get("x-test"), "yes");
  assert.deepEqual([...p.body], [104, 105]);
  assert.equal(p.request, request);
  assert.deepEqual(p.meta, { a: 1 });
  assert.deepEqual(p.cbKwargs, { b: 2 });
  assert.equal(p.depth, 3);
});

Deno.test("text is UTF-8 when nothing says otherwise", () => {
  const p = page(new TextEncoder().encode("<p>café ☕</p>"));
  assert.equal(p.encoding, "utf-8");
  assert.equal(p.text, "<p>café ☕</p>");
});

Deno.test("text is decoded with the Content-Type charset", () => {
  const p = page(latin1("<p>caf\xe9</p>"), { headers: { "content-type": "text/html; charset=ISO-8859-1" } });
  assert.equal(p.text, "<p>café</p>");
  assert.equal(p.css("p").text(), "café");
});

Deno.test("text falls back to a <meta charset> in the first 1024 bytes", () => {
  const html = '<html><head><meta charset="iso-8859-1"><title>x</title></head><body>na\xefve</body></html>';
  assert.equal(page(latin1(html), { headers: { "content-type": "text/html" } }).css("body").text(), "naïve");
});

Deno.test("text falls back to a http-equiv Content-Type meta", () => {
  const html = '<meta http-equiv="Content-Type" content="text/html; charset=windows-1252"><p>\x93quoted\x94</p>';
  assert.equal(page(latin1(html)).css("p").text(), "\u201cquoted\u201d");
});

Deno.test("a meta charset past the first 1024 bytes is found, as the parser finds it, and one in a comment is not", () => {
  const html = `<!-- ${"x".repeat(1100)} --><meta charset="iso-8859-1"><p>caf\xe9</p>`;
  const p = page(latin1(html));
  assert.equal(p.encoding, "windows-1252");
  assert.equal(p.css("p").text(), "café");
  const commented = page(latin1(`<!-- <meta charset="koi8-r"> --><meta charset="iso-8859-2"><p>\xe9</p>`));
  assert.equal(commented.encoding, "iso-8859-2");
});

Deno.test("an undeclared ASCII page is windows-1252, and its links' queries are written in it", () => {
  // The WHATWG fallback and html5lib's tests; browsers and Scrapy send q=caf%E9 for this link.
  const p = page(`<html><body><a href="/s?q=caf&eacute;">caf&eacute;</a></body></html>`);
  assert.equal(p.encoding, "windows-1252");
  assert.deepEqual(p.links(), ["http://127.0.0.1/s?q=caf%E9"]);
  assert.equal(page(`<a href="/s?q=caf&eacute;">x</a>`).follow("/s?q=caf\u00e9").url, "http://127.0.0.1/s?q=caf%E9");
  assert.equal(p.text, `<html><body><a href="/s?q=caf&eacute;">caf&eacute;</a></body></html>`);
});

Deno.test("a meta charset past the first 1024 bytes counts in the head only, and never inside text elements", () => {
  // As Chromium 156 reads these pages (a late <meta> in <script>, <textarea>, <xmp>, or after a tag no head holds,
  // such as <svg>, <p> or </head>, changes nothing); Firefox reads none past the 1,024 bytes.
  const padding = "x".repeat(1100);
  const meta = '<meta charset="iso-8859-5">';
  const encodingOf = (html: string) => page(latin1(html + "<p>\xe9</p>")).encoding;
  assert.equal(encodingOf(`<html><head><style>${padding}</style><title>t</title>${meta}</head>`), "iso-8859-5");
  assert.equal(encodingOf(`<head><script>var s = "${padding}"</script><noscript>${meta}</noscript>`), "iso-8859-5");
  assert.equal(encodingOf(`<head><script>var s = "${padding}${meta}"</script></head>`), "windows-1252");
  assert.equal(encodingOf(`<body><textarea>${padding}${meta}</textarea>`), "windows-1252");
  assert.equal(encodingOf(`<body><xmp>${padding}${meta}</xmp>`), "windows-1252");
  assert.equal(encodingOf(`<head><!-- ${padding} --><svg>${meta}</svg>`), "windows-1252");
  assert.equal(encodingOf(`<body><p>${padding}</p>${meta}`), "windows-1252");
  assert.equal(encodingOf(`<head><!-- ${padding} --></head>${meta}`), "windows-1252");
  // Before the 1,024th byte, the standard's prescan takes a <meta> wherever it is, as before.
  assert.equal(encodingOf(`<body><p>x</p><textarea>${meta}</textarea>`), "iso-8859-5");
});

Deno.test("undeclared bytes fall back to UTF-8 when they are UTF-8, else windows-1252", () => {
  assert.equal(page(new TextEncoder().encode("<p>café</p>")).encoding, "utf-8");
  const p = page(latin1("<p>\x93caf\xe9\x94</p>"));
  assert.equal(p.encoding, "windows-1252");
  assert.equal(p.css("p").text(), "\u201ccafé\u201d");
});

Deno.test("an undeclared UTF-8 page's text, decoded while checking it, is its body decoded", () => {
  const body = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("<p>café \u{1F600}</p>")]);
  const p = page(body.subarray(3));
  assert.equal(p.encoding, "utf-8");
  assert.equal(p.text, new TextDecoder().decode(body.subarray(3)));
  const withMark = page(body);
  assert.equal(withMark.text, "<p>café \u{1F600}</p>");
});

Deno.test("an XML declaration after leading white space names the encoding; text before it hides it", () => {
  const declared = `\t\r\n \xa0<?xml version="1.0" encoding="ISO-8859-2"?><p>\xe9</p>`;
  assert.equal(page(latin1(declared)).encoding, "iso-8859-2");
  assert.equal(page(latin1(`x<?xml version="1.0" encoding="ISO-8859-2"?><p>\xe9</p>`)).encoding, "windows-1252");
});

Deno.test("the Content-Type charset wins over a meta, and a byte order mark wins over both", () => {
  const html = '<meta charset="utf-8"><p>caf\xe9</p>';
  assert.equal(
    page(latin1(html), { headers: { "content-type": "text/html; charset=latin1" } }).css("p").text(),
    "café",
  );
  const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("<p>é</p>")]);
  const p = page(bom, { headers: { "content-type": "text/html; charset=latin1" } });
  assert.equal(p.encoding, "utf-8");
  assert.equal(p.text, "<p>é</p>");
});

Deno.test("an unknown charset label falls back to the next source", () => {
  const p = page(new TextEncoder().encode("<p>é</p>"), { headers: { "content-type": "text/html; charset=klingon" } });
  assert.equal(p.encoding, "utf-8");
  assert.equal(p.text, "<p>é</p>");
});

Deno.test("json() parses the body and throws SyntaxError when it is not JSON", () => {
  assert.deepEqual(page('{"a": [1, "é"]}', { headers: { "content-type": "application/json" } }).json(), {
    a: [1, "é"],
  });
  assert.throws(() => page("<html>").json(), SyntaxError);
});

Deno.test("re() returns capture group 1 when there is one, else the whole match", () => {
  const p = page("price: 12.50 EUR, old price: 15.00 EUR");
  assert.deepEqual(p.re(/(\d+\.\d+) EUR/), ["12.50", "15.00"]);
  assert.deepEqual(p.re(/\d+\.\d+/), ["12.50", "15.00"]);
  assert.deepEqual(p.re("price: (\\d+)"), ["12", "15"]);
  assert.deepEqual(p.re(/nothing/g), []);
});

Deno.test("a page whose callback only reads text, json, links or one tag's attributes builds no DOM, and text needs no more than the light document", () => {
  const p = page('<a href="/x">x</a>');
  assert.equal(p.text.length > 0, true);
  assert.deepEqual(p.links(), ["http://127.0.0.1/x"]);
  assert.equal(p.baseUrl, "http://127.0.0.1/dir/page.html");
  p.follow("../up");
  p.followAll(["a", "b"]);
  assert.deepEqual(p.css("a").attrs("href"), ["/x"]);
  assert.deepEqual(p.css("a[href]::attr(href)").texts(), ["/x"]);
  p.followAll(p.css("a"));
  assert.equal(p.domBuilt, false);
  assert.equal(p.lightBuilt, false);
  assert.equal(p.css("a").text(), "x");
  assert.equal(p.lightBuilt, true, "a selection's text comes from the light document");
  assert.equal(p.domBuilt, false);
  assert.equal(p.css("a").html(), '<a href="/x">x</a>');
  assert.equal(p.domBuilt, true, "its HTML from the DOM");
  const document = p.document;
  p.css("a");
  assert.equal(p.document, document, "the DOM is parsed once");
});

const LINKS_HTML = `<html><head><base href="http://127.0.0.1/base/"></head><body>
  <a href="one.html#top">one</a>
  <a href="/two?x=1&amp;y=2">two</a>
  <a href="one.html">one again</a>
  <a href="mailto:someone@example.com">mail</a>
  <a href="javascript:void(0)">js</a>
  <a href="http://other.test/three#frag">three</a>
  <a name="anchor">no href</a>
  <map><area href="four.html" alt="four"></map>
  <link href="/style.css" rel="stylesheet">
  <a href="ftp://127.0.0.1/file">ftp</a>
  <a href="  https://127.0.0.1/five  ">five</a>
  <script>var s = '<a href="/in-script">';</script>
</body></html>`;

const EXPECTED_LINKS = [
  "http://127.0.0.1/base/one.html",
  "http://127.0.0.1/two?x=1&y=2",
  "http://other.test/three",
  "http://127.0.0.1/base/four.html",
  "https://127.0.0.1/five",
];

Deno.test("links() resolves against <base>, drops fragments, duplicates and other schemes, in document order", () => {
  const p = page(LINKS_HTML);
  assert.deepEqual(p.links(), EXPECTED_LINKS);
  assert.equal(p.domBuilt, false);
});

Deno.test("links() gives the same answer when the DOM was built first", () => {
  const p = page(LINKS_HTML);
  p.css("a");
  assert.deepEqual(p.links(), EXPECTED_LINKS);
  assert.equal(p.baseUrl, "http://127.0.0.1/base/");
});

Deno.test("links() resolve against the page's final URL when there is no <base>", () => {
  const request = new Request("http://127.0.0.1/old/");
  const p = new Page(makeResponse(request, { url: "http://127.0.0.1/new/", body: '<a href="x">x</a>' }));
  assert.deepEqual(p.links(), ["http://127.0.0.1/new/x"]);
});

Deno.test("follow() resolves against the base, goes one level deeper and keeps the options", () => {
  const p = page(LINKS_HTML, { request: new Request({ url: "http://127.0.0.1/dir/page.html", depth: 2 }) });
  const next = p.follow("next.html", { meta: { from: "test" }, priority: 5 });
  assert.equal(next.url, "http://127.0.0.1/base/next.html");
  assert.equal(next.depth, 3);
  assert.deepEqual(next.meta, { from: "test" });
  assert.equal(next.priority, 5);
  assert.equal(p.follow("http://elsewhere.test/x").url, "http://elsewhere.test/x");
});

Deno.test("follow() takes a selection's first href, an img's src, an ::attr() selection or an element", () => {
  const p = page(
    '<ul><li><a href="/a">a</a></li><li><a href="/b">b</a></li></ul><img src="pic.png"><a data-u="/u">u</a>',
  );
  assert.equal(p.follow(p.css("li a")).url, "http://127.0.0.1/a");
  assert.equal(p.follow(p.css("img")).url, "http://127.0.0.1/dir/pic.png");
  assert.equal(p.follow(p.css("a::attr(data-u)")).url, "http://127.0.0.1/u");
  assert.equal(p.follow(p.css("li a").elements[1]).url, "http://127.0.0.1/b");
});

Deno.test("follow() throws TypeError for a selection with no link and for an invalid URL", () => {
  const p = page("<p>text</p>");
  assert.throws(() => p.follow(p.css("p")), TypeError);
  assert.throws(() => p.follow(p.css("table")), TypeError);
  assert.throws(() => p.follow("http://[bad"), TypeError);
});

Deno.test("follow() of a mailto: or javascript: link gives a request (the crawl drops it as scheme), as Scrapy's does", () => {
  const p = page('<a href="mailto:x@example.com">m</a><a href="javascript:void(0)">j</a>');
  assert.equal(p.follow(p.css("a")).url, "mailto:x@example.com");
  assert.equal(p.follow("javascript:void(0)").url, "javascript:void(0)");
});

Deno.test("followAll() follows strings and selections, silently skipping other schemes and elements without links", () => {
  const p = page('<a href="/a">a</a><a>none</a><a href="mailto:x@example.com">m</a><a href="b">b</a>');
  const requests = p.followAll(p.css("a"), { callback: "parseItem" });
  assert.deepEqual(requests.map((r) => r.url), ["http://127.0.0.1/a", "http://127.0.0.1/dir/b"]);
  assert.deepEqual(requests.map((r) => [r.depth, r.callback]), [[1, "parseItem"], [1, "parseItem"]]);
  const fromStrings = p.followAll(["c", "javascript:alert(1)", "https://127.0.0.1/d"]);
  assert.deepEqual(fromStrings.map((r) => r.url), ["http://127.0.0.1/dir/c", "https://127.0.0.1/d"]);
});

const TRICKY_HTML = `<!DOCTYPE html><html><head><title><a href="/in-title"></title>
<style>a::after { content: '<a href="/in-style">' }</style></head><body>
<A HREF="/upper">upper</A>
<a href=/unquoted?a=1&amp;b=2>unquoted</a>
<a data-x="1" href="/first" href="/second">duplicate attribute</a>
<a href="&#47;entity&#x2F;path">entities</a>
<a href="/self-closing"/>
<a href>empty href</a>
<!-- <a href="/in-comment"> -->
<textarea><a href="/in-textarea"></textarea>
<b href="/b-tag">b</b><abbr href="/abbr">abbr</abbr><link href="/link-tag" rel="next">
<svg><a href="/in-svg"><text>svg</text></a></svg>
<BASE HREF="http://127.0.0.1/late-base/"><base href="http://127.0.0.1/second-base/">
<area href="relative-area">
</body></html>`;

Deno.test("the scan that builds no DOM finds exactly what the DOM holds, on awkward HTML", () => {
  const scanned = page(TRICKY_HTML);
  const links = scanned.links();
  assert.equal(scanned.domBuilt, false);
  const walked = page(TRICKY_HTML);
  assert.ok(walked.document);
  assert.deepEqual(walked.links(), links);
  assert.deepEqual(links, [
    "http://127.0.0.1/upper",
    "http://127.0.0.1/unquoted?a=1&b=2",
    "http://127.0.0.1/first",
    "http://127.0.0.1/entity/path",
    "http://127.0.0.1/self-closing",
    "http://127.0.0.1/late-base/",
    "http://127.0.0.1/in-svg",
    "http://127.0.0.1/late-base/relative-area",
  ]);
  assert.equal(scanned.baseUrl, "http://127.0.0.1/late-base/");
});

Deno.test("a page that let go of what it derived works it all out again, the same", () => {
  const html = `<html><head><base href="/b/"></head><body><h1>Title <em>here</em></h1>
    <a href="one.html#x">1</a><a href="/two">2</a><p class=price>£3</p></body></html>`;
  const p = page(html);
  const readings = () => ({
    title: p.css("h1").text(),
    price: p.css(".price::text").text(),
    hrefs: p.css("a").attrs("href"),
    links: p.links(),
    follow: p.follow("one.html").url,
    base: p.baseUrl,
  });
  const before = readings();
  const text = p.text;
  p[RELEASE_DERIVED]();
  assert.equal(p.lightBuilt, false);
  assert.equal(p.domBuilt, false);
  assert.equal(p.text, text);
  assert.deepEqual(readings(), before);
  assert.equal(before.title, "Title here");
  assert.deepEqual(before.links, ["http://127.0.0.1/b/one.html", "http://127.0.0.1/two"]);
});
