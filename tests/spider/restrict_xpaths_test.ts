import assert from "node:assert/strict";
import { LinkExtractor, type LinkExtractorOptions } from "../../src/spider/link_extractor.ts";
import { Page } from "../../src/spider/page.ts";
import { Rule, type RuleOptions, ruleRequests } from "../../src/spider/rule.ts";
import { Spider } from "../../src/spider/spider.ts";
import { crawlItems } from "../engine/_crawl.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";

const HTML = `<html><body>
  <nav><a href="/category/books/">Books</a><a href="/category/music/">Music</a></nav>
  <div id="main">
    <a href="/item/1.html">Item 1</a>
    <div class="inner"><a href="/item/2.html">Item 2</a></div>
  </div>
  <footer><a href="/about.html">About</a> <a href="/item/3.html">Item 3</a></footer>
</body></html>`;

function page(): Page {
  return Page.fromHtml(HTML, { url: "http://example.test/" });
}

class RuleSpider extends Spider {
  constructor(rules: Rule[]) {
    super();
    this.rules = rules;
  }
}

Deno.test("restrictXpaths takes only links inside the elements the expressions select", () => {
  assert.deepEqual(new LinkExtractor({ restrictXpaths: "//div[@id='main']" }).extract(page()), [
    "http://example.test/item/1.html",
    "http://example.test/item/2.html",
  ]);
  // A region inside another is read once; regions come in document order, whichever expression found them.
  assert.deepEqual(
    new LinkExtractor({ restrictXpaths: ["//footer", "//div[@id='main']", "//div[@class='inner']"] }).extract(page()),
    [
      "http://example.test/item/1.html",
      "http://example.test/item/2.html",
      "http://example.test/about.html",
      "http://example.test/item/3.html",
    ],
  );
  // The link itself may be the region, as in Scrapy.
  assert.deepEqual(new LinkExtractor({ restrictXpaths: "//a[contains(., 'Music')]" }).extract(page()), [
    "http://example.test/category/music/",
  ]);
  // With restrictCss too, the links inside either's regions.
  assert.deepEqual(
    new LinkExtractor({ restrictCss: "nav", restrictXpaths: "//footer", allow: "item|books" }).extract(page()),
    [
      "http://example.test/category/books/",
      "http://example.test/item/3.html",
    ],
  );
  // An expression that selects no element (text, attributes, a number) gives no region.
  assert.deepEqual(new LinkExtractor({ restrictXpaths: ["//a/@href", "count(//a)"] }).extract(page()), []);
});

Deno.test("rules with different restrictXpaths take links from their own regions", () => {
  const spider = new RuleSpider([
    new Rule({ restrictXpaths: "//nav", allow: "music" }),
    new Rule({ restrictXpaths: "//footer" }),
    new Rule({ restrictXpaths: "//div[@id='main']", allow: "item/2" }),
  ]);
  assert.deepEqual(ruleRequests(spider, page()).map((request) => [request.rule, request.url]), [
    [0, "http://example.test/category/music/"],
    [1, "http://example.test/about.html"],
    [1, "http://example.test/item/3.html"],
    [2, "http://example.test/item/2.html"],
  ]);
});

Deno.test("a wrong restrictXpaths is refused when the rule is made, with a TypeError naming it", () => {
  assert.throws(() => new Rule({ restrictXpaths: "//div[" }), (error: Error) => {
    assert.ok(error instanceof TypeError);
    assert.match(error.message, /^restrictXpaths: xpath: invalid expression "\/\/div\[": /);
    return true;
  });
  assert.throws(() => new Rule({ restrictXpaths: [""] }), new TypeError("restrictXpaths must be XPath expressions"));
  assert.throws(
    () => new Rule({ restrictXpaths: [42 as unknown as string] }),
    new TypeError("restrictXpaths must be XPath expressions"),
  );
});

Deno.test("a crawl follows the pager and the books through rules with restrictXpaths", async () => {
  const site = await startFixtureSite({ books: 45 });
  try {
    class Books extends Spider {
      override startUrls = [`${site.url}shop/catalogue/page-1.html`];
      override rules = [
        new Rule({ restrictXpaths: "//ul[@class='pager']/li[@class='next']" }),
        new Rule({ restrictXpaths: "//article[@class='product_pod']/h3", callback: "parseBook" }),
      ];
      parseBook(page: Page) {
        return { title: page.xpath("//h1/text()").text(), price: page.xpath("//p[@class='price_color']").text() };
      }
    }
    const { items } = await crawlItems(new Books());
    assert.equal(items.length, 45);
    assert.ok(items.every((item) => typeof item.title === "string" && item.title !== ""));
    assert.ok(items.every((item) => /^£\d+\.\d\d$/.test(item.price as string)), JSON.stringify(items[0]));
    // Only the pager's and the books' links were followed: not the category or breadcrumb links around them.
    assert.equal(site.requests.filter((request) => request.path.includes("/category/")).length, 0);
  } finally {
    await site.close();
  }
});

Deno.test("Scrapy's spellings of rule and extractor options are refused with Netweir's name, not passed unread", () => {
  const scrapyRule = { restrict_xpaths: "//nav", callback: "parseItem" } as unknown as RuleOptions;
  assert.throws(
    () => new Rule(scrapyRule),
    new TypeError("Rule option restrict_xpaths is Scrapy's name; in Netweir it is restrictXpaths"),
  );
  assert.throws(
    () => new Rule({ cb_kwargs: { a: 1 } } as unknown as RuleOptions),
    new TypeError("Rule option cb_kwargs is Scrapy's name; in Netweir it is cbKwargs"),
  );
  assert.throws(
    () => new LinkExtractor({ restrict_css: "nav" } as unknown as LinkExtractorOptions),
    new TypeError("LinkExtractor option restrict_css is Scrapy's name; in Netweir it is restrictCss"),
  );
});
