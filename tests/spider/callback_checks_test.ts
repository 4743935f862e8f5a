import assert from "node:assert/strict";
import { UsageError } from "../../src/errors.ts";
import { Rule } from "../../src/spider/rule.ts";
import type { Page } from "../../src/spider/page.ts";
import { Spider } from "../../src/spider/spider.ts";
import { checkSpiderAtStart } from "../../src/spider/start_checks.ts";

/** The sitemap example docs/spiders.md had: its second rule sends pages to a parse the class lacks. */
class Products extends Spider {
  override sitemapUrls = ["https://shop.example/robots.txt"];
  override sitemapRules: Spider["sitemapRules"] = [[/\/product\//, "parseProduct"], [/\/category\//, "parse"]];
  parseProduct(page: Page) {
    return { url: page.url };
  }
}

Deno.test("a sitemap rule naming a parse the spider lacks is refused before the crawl, in one line", () => {
  assert.throws(
    () => checkSpiderAtStart(new Products()),
    (error: unknown) =>
      error instanceof UsageError &&
      error.message ===
        'spider Products sitemapRules[1]: callback "parse" is not a method of the spider (it has no parse)',
  );
});

Deno.test("a rule naming a method the spider does not have is refused before the crawl, naming the rule", () => {
  class Typo extends Spider {
    override startUrls = ["https://shop.example/"];
    override rules = [new Rule({ allow: ["/book/"], callback: "parseBok" })];
    parseBook(page: Page) {
      return { url: page.url };
    }
  }
  assert.throws(
    () => checkSpiderAtStart(new Typo()),
    (error: unknown) =>
      error instanceof UsageError &&
      error.message === 'spider Typo rules[0]: callback "parseBok" is not a method of the spider (Typo)',
  );
});

Deno.test("rules naming methods the spider has pass, and sitemap rules are not looked at without sitemaps", () => {
  class Fine extends Spider {
    override sitemapUrls = ["https://shop.example/sitemap.xml"];
    override sitemapRules: Spider["sitemapRules"] = [[/\/product\//, "parseProduct"], [/\/category\//, "parse"]];
    override rules = [new Rule({ allow: ["/book/"], callback: "parseProduct" }), new Rule({ allow: ["/page/"] })];
    override parse(page: Page) {
      return { url: page.url };
    }
    parseProduct(page: Page) {
      return { url: page.url };
    }
  }
  checkSpiderAtStart(new Fine());
  class NoSitemaps extends Spider {
    override startUrls = ["https://shop.example/"];
    override rules = [new Rule({ allow: ["/book/"], callback: "parseBook" })];
    parseBook(page: Page) {
      return { url: page.url };
    }
  }
  // Its default sitemap rule names a parse it lacks: harmless, since it has no sitemap to apply it to.
  checkSpiderAtStart(new NoSitemaps());
});
