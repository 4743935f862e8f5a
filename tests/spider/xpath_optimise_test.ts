import assert from "node:assert/strict";
import { Page } from "../../src/spider/page.ts";
import { parseXPath } from "../../src/spider/xpath_select.ts";

/** The parsed expression as the library writes it back, to see which steps it will take. */
function steps(expression: string): string {
  return String(parseXPath(expression).expression);
}

Deno.test("//name with test predicates is taken as one descendant step", () => {
  assert.equal(steps("//article[@class='x']/h3"), "/descendant::article[(attribute::class = 'x')]/child::h3");
  assert.equal(steps(".//a[contains(@href, 'x')]"), "self::node()/descendant::a[contains(attribute::href, 'x')]");
  assert.equal(steps("//div[.//p]//text()"), "/descendant::div[self::node()/descendant::p]/descendant::text()");
  assert.equal(steps("//a[count(b) = 1 and not(@x)]"), "/descendant::a[((count(child::b) = 1) and not(attribute::x))]");
});

Deno.test("//name keeps its steps when a predicate may be a position, and for attributes", () => {
  for (
    const expression of [
      "//li[1]",
      "//li[last()]",
      "//li[position() < 2]",
      "//li[$n]",
      "//li[@a][2]",
      "//li[string-length(.)]",
    ]
  ) {
    assert.match(steps(expression), /^\/descendant-or-self::node\(\)\/child::li\[/, expression);
  }
  assert.equal(steps("//@href"), "/descendant-or-self::node()/attribute::href");
});

Deno.test("positional predicates after // still count among each parent's children", () => {
  const page = Page.fromHtml(
    `<ul><li a="1">a</li><li>b</li><li a="1">c</li></ul><ol><li>d</li><li a="1">e</li><li a="1">f</li></ol>`,
    { url: "http://127.0.0.1/" },
  );
  assert.deepEqual(page.xpath("//li[1]").texts(), ["a", "d"]);
  assert.deepEqual(page.xpath("//li[last()]").texts(), ["c", "f"]);
  assert.deepEqual(page.xpath("//li[@a][2]").texts(), ["c", "f"]);
  assert.deepEqual(page.xpath("//li[position() > 2]").texts(), ["c", "f"]);
  assert.deepEqual(page.xpath("(//li[@a])[2]").texts(), ["c"]);
  assert.deepEqual(page.xpath("//li[@a]").texts(), ["a", "c", "e", "f"]);
  assert.deepEqual(page.xpath("//li[@a][position() = 1]").texts(), ["a", "e"]);
  assert.deepEqual(page.xpath("//ol//li[not(@a)]").texts(), ["d"]);
});
