import assert from "node:assert/strict";
import { makeResponse } from "../../src/spider/response.ts";
import { Page } from "../../src/spider/page.ts";
import { Request } from "../../src/spider/request.ts";
import { parseSelector, Selection } from "../../src/spider/selection.ts";

const HTML = `<!doctype html><html><head><title>Shop</title></head><body>
  <h1>  Books &amp; more <small>new</small> </h1>
  <ul id="list">
    <li class="item active"><a href="/a" data-id="1">First</a> one</li>
    <li class="item"><a href="/b" data-id="2">Second</a> two</li>
    <li class="item"><a>No link</a> three</li>
  </ul>
  <div class="outer"><div class="inner"><p>deep</p></div><p>shallow</p></div>
  <img src="/cover.png" ALT="Cover">
</body></html>`;

function page(html = HTML): Page {
  const request = new Request("http://127.0.0.1/shop/");
  return new Page(makeResponse(request, { headers: { "content-type": "text/html" }, body: html }));
}

Deno.test("css finds elements in document order and text() reads the first one, trimmed", () => {
  const items = page().css("li.item");
  assert.equal(items.length, 3);
  assert.equal(items.text(), "First one");
  assert.deepEqual(items.texts(), ["First one", "Second two", "No link three"]);
  assert.equal(page().css("h1").text(), "Books & more new");
});

Deno.test("an empty selection reads as empty string, undefined attribute and undefined html", () => {
  const none = page().css("table.missing");
  assert.equal(none.length, 0);
  assert.equal(none.text(), "");
  assert.deepEqual(none.texts(), []);
  assert.equal(none.attr("href"), undefined);
  assert.deepEqual(none.attrs("href"), []);
  assert.equal(none.html(), undefined);
  assert.equal(none.first().length, 0);
});

Deno.test("attr reads the first element and attrs every element that has the attribute", () => {
  const links = page().css("li a");
  assert.equal(links.attr("href"), "/a");
  assert.deepEqual(links.attrs("href"), ["/a", "/b"]);
  assert.deepEqual(links.attrs("data-id"), ["1", "2"]);
  assert.equal(page().css("img").attr("alt"), "Cover", "attribute names are case-insensitive in HTML");
  assert.equal(page().css("img").attr("ALT"), "Cover");
});

Deno.test("::text reads only an element's own text nodes, and a space before it reads all text below", () => {
  assert.equal(page().css("h1::text").text(), "Books & more");
  assert.equal(page().css("h1 ::text").text(), "Books & more new");
  assert.deepEqual(page().css("li::text").texts(), ["one", "two", "three"]);
  assert.deepEqual(page().css("li a::text").texts(), ["First", "Second", "No link"]);
});

Deno.test("::attr(name) selects attribute values, leaving out elements without the attribute", () => {
  const hrefs = page().css("li a::attr(href)");
  assert.equal(hrefs.length, 2);
  assert.equal(hrefs.text(), "/a");
  assert.deepEqual(hrefs.texts(), ["/a", "/b"]);
  assert.deepEqual([...hrefs].map((one) => one.text()), ["/a", "/b"]);
  assert.equal(page().css("img::attr(src)").text(), "/cover.png");
});

Deno.test("a selector list whose members all end in ::text is accepted, a mixed one is refused", () => {
  assert.deepEqual(page().css("h1::text, li a::text").texts(), ["Books & more", "First", "Second", "No link"]);
  assert.throws(() => page().css("h1::text, li a"), SyntaxError);
  assert.throws(() => page().css("h1::text, a::attr(href)"), SyntaxError);
  assert.deepEqual(parseSelector("a[title='x, y']::attr(href)"), {
    css: "a[title='x, y']",
    mode: { kind: "attr", name: "href" },
  });
});

Deno.test("nested css searches each element and its descendants", () => {
  const list = page().css("#list");
  assert.deepEqual(list.css("a").attrs("href"), ["/a", "/b"]);
  assert.equal(list.css("li.active a").text(), "First");
  // descendant-or-self, as Scrapy: the outer div is kept, and nested matches are not repeated
  const divs = page().css("div");
  assert.equal(divs.length, 2);
  assert.equal(divs.css("p").length, 2);
  assert.deepEqual(page().css("div.outer").css("div").texts(), ["deepshallow", "deep"]);
});

Deno.test("::text and ::attr on their own apply to the selection's elements", () => {
  const first = page().css("li a").first();
  assert.equal(first.css("::text").text(), "First");
  assert.equal(first.css("::attr(data-id)").text(), "1");
  assert.equal(page().css("li").first().css("::text").text(), "one");
});

Deno.test("iterating a selection yields one-element selections that keep the mode", () => {
  const texts: string[] = [];
  for (const item of page().css("li")) {
    assert.ok(item instanceof Selection);
    assert.equal(item.length, 1);
    texts.push(item.css("a").text());
  }
  assert.deepEqual(texts, ["First", "Second", "No link"]);
  assert.deepEqual([...page().css("li::text")].map((one) => one.text()), ["one", "two", "three"]);
});

Deno.test("get(i) picks one element, negative indexes count from the end, out of range is empty", () => {
  const items = page().css("li");
  assert.equal(items.get(1).text(), "Second two");
  assert.equal(items.get(-1).text(), "No link three");
  assert.equal(items.get(9).length, 0);
  assert.equal(items.first().css("a").attr("data-id"), "1");
});

Deno.test("html() gives the first element's outer HTML with markup characters escaped", () => {
  assert.equal(page().css("h1").html(), "<h1>  Books &amp; more <small>new</small> </h1>");
  assert.equal(page().css("li a").html(), '<a href="/a" data-id="1">First</a>');
});

Deno.test("elements exposes the matched DOM elements", () => {
  const elements = page().css("li a").elements;
  assert.deepEqual(elements.map((el) => el.name), ["a", "a", "a"]);
  assert.equal(elements[1].attribs.href, "/b");
});

Deno.test("a selector finds the same elements every time it is used, on every page, relative ones included", () => {
  const nested = `<ul id="a"><li>1</li><li><ul><li>2</li></ul></li></ul><ul id="b"><li>3</li></ul>`;
  for (let round = 0; round < 3; round++) {
    // Two different pages in turn: what one page's search found must not leak into the other's.
    assert.deepEqual(page().css("li.item a::text").texts(), ["First", "Second", "No link"]);
    assert.deepEqual(page(nested).css("li::text").texts(), ["1", "", "2", "3"]);
    assert.deepEqual(page(nested).css("ul#a > li::text").texts(), ["1", ""]);
    // Relative to the elements searched: the outer list's own items, not the nested list's.
    const outer = page(nested).css("ul#a");
    assert.equal(outer.css("> li").length, 2);
    assert.equal(outer.css(":scope > li").length, 2);
    assert.deepEqual(outer.css("li li::text").texts(), ["2"]);
  }
});

Deno.test("a selector run under a selection leaves that selection whole, on the DOM and on the light document", () => {
  const html = `<form id=1><input name=q></form><div><p>a</p></div>`;
  const light = page(html);
  const selected = light.css("*");
  const count = selected.length;
  assert.deepEqual(selected.css("input").attrs("name"), ["q"]);
  assert.equal(selected.length, count);
  assert.deepEqual(selected.elements.map((element) => element.name).slice(-3), ["input", "div", "p"]);
  const dom = page(html);
  assert.ok(dom.document);
  const all = dom.css("*");
  const before = all.length;
  all.css("p");
  assert.equal(all.length, before, "css-select's removeSubsets once spliced the selection's own array");
  assert.equal(all.texts().length, before);
});
