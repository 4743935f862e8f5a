import assert from "node:assert/strict";
import { makeResponse } from "../../src/spider/response.ts";
import { LinkExtractor } from "../../src/spider/link_extractor.ts";
import { Page } from "../../src/spider/page.ts";
import { Request } from "../../src/spider/request.ts";
import { Rule, ruleRequests } from "../../src/spider/rule.ts";
import { Spider } from "../../src/spider/spider.ts";

const HTML = `<html><body>
  <nav><a href="/category/books/">Books</a><a href="/category/music/">Music</a></nav>
  <div class="products">
    <a href="/item/1.html#reviews">Item 1</a>
    <a href="/item/2.html">Item 2</a>
    <a href="/item/1.html">Item 1 again</a>
    <a href="/item/3.html?session=abc">Item 3</a>
  </div>
  <a href="http://shop.example.test/item/9.html">Sub-domain item</a>
  <a href="http://evilexample.test/item/8.html">Look-alike domain</a>
  <a href="http://cdn.other.test/item/7.html">Other site</a>
  <a href="/files/catalogue.pdf">PDF</a>
  <a href="/images/cover.JPG">Cover</a>
  <a href="mailto:shop@example.test">Mail</a>
  <a href="/about.html">About</a>
</body></html>`;

function page(html = HTML, depth = 0): Page {
  const request = new Request({ url: "http://example.test/", depth });
  return new Page(makeResponse(request, { headers: { "content-type": "text/html" }, body: html }));
}

class RuleSpider extends Spider {
  constructor(rules: Rule[]) {
    super();
    this.rules = rules;
  }
  parseItem(_page: Page) {
    return { ok: true };
  }
  onlyFirstTwo(links: string[]) {
    return links.slice(0, 2);
  }
}

Deno.test("a rule follows by default without a callback and does not with one, unless told", () => {
  assert.equal(new Rule({}).follow, true);
  assert.equal(new Rule({ callback: "parseItem" }).follow, false);
  assert.equal(new Rule({ callback: "parseItem", follow: true }).follow, true);
  assert.equal(new Rule({ follow: false }).follow, false);
});

Deno.test("allow and deny patterns are searched in the absolute URL, as strings or RegExps", () => {
  const urls = new LinkExtractor({ allow: "/item/", deny: [/session=/g] }).extract(page());
  assert.deepEqual(urls, [
    "http://example.test/item/1.html",
    "http://example.test/item/2.html",
    "http://shop.example.test/item/9.html",
    "http://evilexample.test/item/8.html",
    "http://cdn.other.test/item/7.html",
  ]);
  // a RegExp with the g flag is used many times: its lastIndex must not make every other link fail
  const extractor = new LinkExtractor({ allow: /item/g });
  assert.equal(extractor.matches("http://a.test/item/1"), true);
  assert.equal(extractor.matches("http://a.test/item/1"), true);
});

Deno.test("allowDomains takes the domain and its subdomains but not look-alikes, denyDomains removes them", () => {
  const allowed = new LinkExtractor({ allow: "/item/", allowDomains: "example.test" }).extract(page());
  assert.ok(allowed.includes("http://shop.example.test/item/9.html"));
  assert.ok(allowed.includes("http://example.test/item/2.html"));
  assert.ok(!allowed.includes("http://evilexample.test/item/8.html"));
  assert.ok(!allowed.includes("http://cdn.other.test/item/7.html"));
  const denied = new LinkExtractor({ allow: "/item/", denyDomains: ["Shop.Example.test", "other.test"] }).extract(
    page(),
  );
  assert.deepEqual(denied.filter((url) => !url.startsWith("http://example.test/")), [
    "http://evilexample.test/item/8.html",
  ]);
});

Deno.test("restrictCss takes only links inside the matching regions", () => {
  assert.deepEqual(new LinkExtractor({ restrictCss: "nav" }).extract(page()), [
    "http://example.test/category/books/",
    "http://example.test/category/music/",
  ]);
  assert.deepEqual(new LinkExtractor({ restrictCss: ["nav", ".products"], deny: "item/[13]" }).extract(page()), [
    "http://example.test/category/books/",
    "http://example.test/category/music/",
    "http://example.test/item/2.html",
  ]);
});

Deno.test("files that are not pages are skipped unless denyExtensions says otherwise", () => {
  const urls = new LinkExtractor().extract(page());
  assert.ok(!urls.some((url) => url.endsWith(".pdf") || url.endsWith(".JPG")));
  assert.ok(urls.includes("http://example.test/about.html"));
  const everything = new LinkExtractor({ denyExtensions: [] }).extract(page());
  assert.ok(everything.includes("http://example.test/files/catalogue.pdf"));
  assert.ok(everything.includes("http://example.test/images/cover.JPG"));
  assert.ok(!everything.some((url) => url.startsWith("mailto:")));
});

Deno.test("bad rule options are refused with TypeError", () => {
  assert.throws(() => new Rule({ allow: "([unclosed" }), TypeError);
  assert.throws(() => new Rule({ allowDomains: [""] }), TypeError);
  assert.throws(() => new Rule({ follow: "yes" as unknown as boolean }), TypeError);
  assert.throws(() => new Rule({ callback: 42 as unknown as string }), TypeError);
});

Deno.test("each link goes to the first rule that takes it, with the rule's index and no callback name", () => {
  const spider = new RuleSpider([
    new Rule({ allow: "/item/", allowDomains: "example.test", callback: "parseItem" }),
    new Rule({ allow: "/category/" }),
    new Rule({ allow: "." }),
  ]);
  const requests = ruleRequests(spider, page(HTML, 2));
  const byRule = (index: number) => requests.filter((r) => r.rule === index).map((r) => r.url);
  assert.deepEqual(byRule(0), [
    "http://example.test/item/1.html",
    "http://example.test/item/2.html",
    "http://example.test/item/3.html?session=abc",
    "http://shop.example.test/item/9.html",
  ]);
  assert.deepEqual(byRule(1), ["http://example.test/category/books/", "http://example.test/category/music/"]);
  assert.ok(byRule(2).includes("http://example.test/about.html"));
  assert.ok(byRule(2).includes("http://evilexample.test/item/8.html"));
  assert.ok(!byRule(2).includes("http://example.test/item/1.html"), "a link taken by rule 0 is not taken again");
  assert.ok(requests.every((r) => r.callback === undefined && r.depth === 3));
  assert.equal(new Set(requests.map((r) => r.url)).size, requests.length, "no URL twice from one page");
  assert.ok(!requests.some((r) => r.url.startsWith("mailto:") || r.url.endsWith(".pdf")));
});

Deno.test("a rule's cbKwargs travel on its requests and processLinks can change its links", () => {
  const spider = new RuleSpider([
    new Rule({ allow: "/item/", processLinks: "onlyFirstTwo", cbKwargs: { kind: "item" } }),
    new Rule({ allow: "/category/", processLinks: (links) => [...links, "/item/1.html", "mailto:x@y.test"] }),
  ]);
  const requests = ruleRequests(spider, page());
  assert.deepEqual(requests.map((r) => [r.rule, r.url]), [
    [0, "http://example.test/item/1.html"],
    [0, "http://example.test/item/2.html"],
    [1, "http://example.test/category/books/"],
    [1, "http://example.test/category/music/"],
  ]);
  assert.deepEqual(requests[0].cbKwargs, { kind: "item" });
  assert.deepEqual(requests[2].cbKwargs, {});
});

Deno.test("rules with restrictCss take links from their own regions, the first rule winning", () => {
  const spider = new RuleSpider([
    new Rule({ restrictCss: "nav", callback: "parseItem" }),
    new Rule({ restrictCss: ".products", allow: "item/2" }),
    new Rule({ restrictCss: ".products" }),
  ]);
  const requests = ruleRequests(spider, page());
  assert.deepEqual(requests.map((r) => [r.rule, r.url]), [
    [0, "http://example.test/category/books/"],
    [0, "http://example.test/category/music/"],
    [1, "http://example.test/item/2.html"],
    [2, "http://example.test/item/1.html"],
    [2, "http://example.test/item/3.html?session=abc"],
  ]);
});

Deno.test("a scheme-qualified relative link resolves against <base href> in links(), follow() and every rule", () => {
  // Browsers and Scrapy: same scheme as the base, no "//", so relative to the base (not to the page's URL).
  const html = `<html><head><base href="http://example.org/foo/bar"></head><body>
    <div class="r"><a href="http:foo.com">relative</a><a href="http:/top">from the root</a></div></body></html>`;
  const fresh = () => new Page(makeResponse(new Request("https://page.example.test/dir/page.html"), { body: html }));
  const expected = ["http://example.org/foo/foo.com", "http://example.org/top"];
  assert.deepEqual(fresh().links(), expected);
  assert.deepEqual([fresh().follow("http:foo.com").url, fresh().follow("http:/top").url], expected);
  class Spider1 extends Spider {
    override rules = [new Rule({ restrictCss: ".r" }), new Rule({})];
  }
  assert.deepEqual(ruleRequests(new Spider1(), fresh()).map((r) => [r.rule, r.url]), expected.map((u) => [0, u]));
  class Spider2 extends Spider {
    override rules = [new Rule({})];
  }
  assert.deepEqual(ruleRequests(new Spider2(), fresh()).map((r) => r.url), expected);
});
