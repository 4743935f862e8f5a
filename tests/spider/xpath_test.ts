import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { Page } from "../../src/spider/page.ts";
import { Request } from "../../src/spider/request.ts";
import { Selection } from "../../src/spider/selection.ts";
import { runCommand } from "../helpers/command.ts";

const SHOP = `<!DOCTYPE html><html><head><title>Shop</title></head><body>
<div class="product new" data-id="1"><h3><a href="/dune">Dune <b>(1965)</b></a></h3><p class="price">£9.99</p></div>
<div class="product" data-id="2"><h3><a href="/emma">Emma</a></h3><p class="price">£4.50</p></div>
<!-- stock: 2 -->
<p>first<br>second</p>
</body></html>`;

function shop(): Page {
  return Page.fromHtml(SHOP, { url: "https://shop.example/list/" });
}

Deno.test("page.xpath reads elements, text nodes, attributes and values the way css() reads elements", () => {
  const page = shop();
  assert.equal(page.xpath("//title").text(), "Shop");
  assert.deepEqual(page.xpath("//h3/a").texts(), ["Dune (1965)", "Emma"]);
  assert.deepEqual(page.xpath("//h3/a").attrs("href"), ["/dune", "/emma"]);
  assert.equal(page.xpath("//div[@data-id='2']").attr("class"), "product");
  assert.deepEqual(page.xpath("//h3/a/@href").texts(), ["/dune", "/emma"]);
  assert.deepEqual(page.xpath("//h3/a/text()").strings(), ["Dune ", "Emma"]);
  assert.deepEqual(page.xpath("//p[not(@class)]/text()").texts(), ["first", "second"]);
  assert.equal(page.xpath("//comment()").text(), "stock: 2");
  assert.equal(page.xpath("count(//div[has-class('product')])").text(), "2");
  assert.equal(page.xpath("sum(//div/@data-id) div 2").text(), "1.5");
  assert.equal(page.xpath("boolean(//div[has-class('new')])").text(), "true");
  assert.equal(page.xpath("string(//p[@class='price'])").text(), "£9.99");
  assert.equal(page.xpath("//h3/a").length, 2);
  assert.equal(page.xpath("//h3/a").get(-1).text(), "Emma");
  assert.equal(page.xpath("//nothing").text(), "");
  assert.equal(page.xpath("//nothing").html(), undefined);
  assert.equal(page.xpath("//h3/a").html(), '<a href="/dune">Dune <b>(1965)</b></a>');
  assert.deepEqual([...page.xpath("//div/@data-id")].map((each) => each.text()), ["1", "2"]);
});

Deno.test("css and xpath mix both ways on the same document", () => {
  const page = shop();
  assert.deepEqual(page.css("div.product").xpath("./h3/a/@href").texts(), ["/dune", "/emma"]);
  assert.deepEqual(page.xpath("//div[@data-id]").css("p.price::text").texts(), ["£9.99", "£4.50"]);
  assert.deepEqual(page.xpath("//div").css("b").texts(), ["(1965)"]);
  // A relative path runs from each element of the selection, in turn.
  assert.deepEqual(page.css("div.product").xpath("count(.//a)").texts(), ["1", "1"]);
  // An expression on text nodes and attributes takes them as the context node.
  assert.deepEqual(page.xpath("//a/text()").xpath("..").attrs("href"), ["/dune", "/emma"]);
  assert.deepEqual(page.xpath("//a/@href").xpath("../../../@data-id").texts(), ["1", "2"]);
  // A selection the page answered from a scan, before any DOM, is found in the DOM for XPath.
  const fresh = shop();
  assert.deepEqual(fresh.css("a").xpath("string(@href)").texts(), ["/dune", "/emma"]);
  assert.ok(fresh.xpath("//a") instanceof Selection);
});

Deno.test("follow and followAll take the links of an XPath selection, attributes included", () => {
  const page = shop();
  assert.equal(page.follow(page.xpath("//a/@href")).url, "https://shop.example/dune");
  assert.equal(page.follow(page.xpath("//div[2]//a")).url, "https://shop.example/emma");
  assert.deepEqual(page.followAll(page.xpath("//a/@href")).map((request) => request.url), [
    "https://shop.example/dune",
    "https://shop.example/emma",
  ]);
});

Deno.test("XPath variables come from the options, as parsel's keyword arguments", () => {
  const page = shop();
  assert.equal(page.xpath("//div[@data-id=$id]//a", { variables: { id: 2 } }).text(), "Emma");
  assert.equal(page.xpath("//a[starts-with(@href, $start)]", { variables: { start: "/du" } }).text(), "Dune (1965)");
});

Deno.test("names are matched in lower case and the doctype is no node, as lxml reads HTML", () => {
  const page = Page.fromHtml(
    `<!DOCTYPE html><svg viewBox="0 0 1 1"><clipPath id="c"/></svg><DIV ID="x">upper</DIV>`,
    { url: "http://127.0.0.1/" },
  );
  assert.equal(page.xpath("//clippath/@id").text(), "c");
  assert.equal(page.xpath("//div[@id='x']").text(), "upper");
  assert.equal(page.xpath("count(/node())").text(), "2");
});

Deno.test("has-class, re:test, re:replace and set:difference work as parsel's", () => {
  const page = shop();
  assert.deepEqual(page.xpath("//div[has-class('product', 'new')]/@data-id").texts(), ["1"]);
  assert.deepEqual(page.xpath("//a[re:test(@href, '^/E', 'i')]/text()").texts(), ["Emma"]);
  assert.equal(page.xpath("re:replace(//a/@href, '/(\\w)(\\w+)', 'g', '\\2-\\1')").text(), "une-d");
  assert.deepEqual(page.xpath("set:difference(//div/@data-id, //div[has-class('new')]/@data-id)").texts(), ["2"]);
});

Deno.test("a wrong expression throws one SyntaxError naming it", () => {
  const page = shop();
  assert.throws(() => page.xpath("//a["), (error: Error) => {
    assert.ok(error instanceof SyntaxError);
    assert.match(error.message, /^xpath: invalid expression "\/\/a\[": /);
    assert.doesNotMatch(error.message, /\n/);
    return true;
  });
  assert.throws(() => page.xpath("nosuch(1)"), /xpath: cannot evaluate "nosuch\(1\)": .*nosuch/);
  assert.throws(() => page.xpath("//a[@x=$missing]"), /xpath: cannot evaluate/);
  assert.throws(() => page.xpath("has-class()"), /has-class must have at least 1 argument/);
});

Deno.test("Page.fromHtml builds the page a callback gets, from a string or bytes", () => {
  const page = Page.fromHtml("<a href='next'>n</a><p>café</p>", { url: "https://books.example/a/b" });
  assert.equal(page.url, "https://books.example/a/b");
  assert.equal(page.status, 200);
  assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
  assert.equal(page.css("p").text(), "café");
  assert.deepEqual(page.links(), ["https://books.example/a/next"]);
  assert.equal(page.follow("next").depth, 1);

  const latin1 = Uint8Array.from("<p>caf\xe9</p>", (ch) => ch.charCodeAt(0));
  const bytes = Page.fromHtml(latin1, {
    url: "http://127.0.0.1/",
    headers: { "content-type": "text/html; charset=latin1" },
  });
  assert.equal(bytes.css("p").text(), "café");

  const request = new Request({
    url: "https://books.example/x",
    meta: { page: 3 },
    cbKwargs: { shelf: "sf" },
    depth: 2,
  });
  const answered = Page.fromHtml("<p>x</p>", { request, status: 404 });
  assert.equal(answered.url, "https://books.example/x");
  assert.equal(answered.status, 404);
  assert.deepEqual(answered.meta, { page: 3 });
  assert.deepEqual(answered.cbKwargs, { shelf: "sf" });
  assert.equal(answered.follow("/y").depth, 3);
});

Deno.test("Page.fromHtml refuses a page with no URL and HTML that is not text or bytes", () => {
  assert.throws(
    () => Page.fromHtml("<p>x</p>", {} as { url: string }),
    new TypeError("Page.fromHtml: give the page's url (or a request)"),
  );
  assert.throws(
    () => Page.fromHtml(42 as unknown as string, { url: "http://127.0.0.1/" }),
    new TypeError("Page.fromHtml: the HTML must be a string or a Uint8Array"),
  );
  assert.throws(() => Page.fromHtml("<p>x</p>", { url: "not a url" }), TypeError);
});

Deno.test("the XPath engine is loaded by the first XPath, not before", async () => {
  const mod = fileURLToPath(new URL("../../mod.ts", import.meta.url));
  const load = fileURLToPath(new URL("../../src/spider/xpath_load.ts", import.meta.url));
  const script = `
    import { Page } from ${JSON.stringify(mod)};
    import { xpathLoaded } from ${JSON.stringify(load)};
    const page = Page.fromHtml("<h1>t</h1><a href='/x'>x</a>", { url: "http://127.0.0.1/" });
    const before = [page.css("h1").text(), page.links().length, xpathLoaded()];
    const after = [page.xpath("//h1").text(), xpathLoaded()];
    console.log(JSON.stringify([before, after]));
  `;
  const ran = await runCommand(Deno.execPath(), ["eval", "--quiet", script]);
  assert.equal(ran.code, 0, ran.stderr);
  assert.deepEqual(JSON.parse(ran.stdout), [["t", 1, false], ["t", true]]);
});

Deno.test("spaces between a function's name and its parenthesis are XPath, and operators before one stay operators", () => {
  const page = shop();
  assert.deepEqual(page.xpath("//div[not (@class = 'product')]/@data-id").texts(), ["1"]);
  assert.equal(page.xpath("count (//div) + count( //p )").text(), "5");
  assert.deepEqual(page.xpath("//div[@data-id and (@class = 'product')]/@data-id").texts(), ["2"]);
  assert.equal(page.xpath("6 div (2) + 7 mod (4)").text(), "6");
  assert.deepEqual(page.xpath("//a[contains(., 'not (x)')]").texts(), []);
  assert.equal(page.xpath("string('count (1)')").text(), "count (1)");
});

Deno.test("lang() is false on HTML, whose lang attributes are not xml:lang, as in parsel", () => {
  const page = Page.fromHtml(`<div lang="en" xml:lang="en"><p>x</p></div>`, { url: "http://127.0.0.1/" });
  assert.equal(page.xpath("count(//p[lang('en')])").text(), "0");
  assert.equal(page.xpath("//div/@lang").text(), "en");
});
