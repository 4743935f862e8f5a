/**
 * The light document against the DOM it stands in for: element for element (name, attributes, parent, text, own
 * text) on awkward markup and on seeded random markup, and every reading of a selection (length, texts, attributes,
 * nested selectors, HTML) the same whether the page answered from its light document or from its DOM.
 */
import assert from "node:assert/strict";
import { parseDocument } from "htmlparser2";
import { type AnyNode, type Element, isTag, isText } from "domhandler";
import { textContent } from "domutils";
import { buildLightDocument } from "../../src/spider/light_builder.ts";
import { makeResponse } from "../../src/spider/response.ts";
import { Page } from "../../src/spider/page.ts";
import { Request } from "../../src/spider/request.ts";
import type { Selection } from "../../src/spider/selection.ts";
import { AWKWARD_PAGES } from "../helpers/awkward_html.ts";
import { randomPieces, seededRandom } from "../helpers/seeded_random.ts";

const URL_OF_PAGE = "http://127.0.0.1/dir/page.html";

function page(body: string): Page {
  return new Page(makeResponse(new Request(URL_OF_PAGE), { body, headers: { "content-type": "text/html" } }));
}

/** A page whose DOM is built before anything is asked of it: every selector goes the DOM's way. */
function domPage(body: string): Page {
  const p = page(body);
  assert.ok(p.document);
  return p;
}

/** The DOM's elements in document order, template contents included (the light document holds them too). */
function domElements(nodes: readonly AnyNode[], into: Element[] = []): Element[] {
  for (const node of nodes) {
    if (isTag(node)) into.push(node);
    if ("children" in node) domElements(node.children, into);
  }
  return into;
}

function ownText(element: Element): string {
  return element.children.filter(isText).map((text) => text.data).join("");
}

/** Every element of the light document is the DOM's element of the same index. */
function assertSameTree(html: string, label: string): void {
  const light = buildLightDocument(html);
  const dom = domElements(parseDocument(html).children);
  assert.equal(light.elements.length, dom.length, `${label}: element count`);
  dom.forEach((element, i) => {
    const mine = light.elements[i];
    const where = `${label}: element ${i} <${element.name}>`;
    assert.equal(mine.index, i, where);
    assert.equal(mine.name, element.name, where);
    assert.deepEqual(mine.attribs, element.attribs, where);
    const parent = element.parent !== null && isTag(element.parent) ? dom.indexOf(element.parent) : -1;
    assert.equal(mine.parent?.index ?? -1, parent, `${where}: parent`);
    assert.equal(light.textContent(mine), textContent(element), `${where}: text`);
    assert.equal(light.ownText(mine), ownText(element), `${where}: own text`);
    assert.deepEqual(
      light.childrenOf(mine).map((child) => child.index),
      element.children.filter(isTag).map((child) => dom.indexOf(child)),
      `${where}: children`,
    );
  });
}

/** Pieces random pages are made of: tags that open and close others by themselves, raw text, foreign content. */
const PIECES = [
  "<p>",
  "</p>",
  "<p class='a b'>",
  "<div id=x>",
  "</div>",
  "<li>",
  "</li>",
  "<ul>",
  "</ul>",
  "<table><tr><td>",
  "</td>",
  "</table>",
  "<a href=/x>",
  "</a>",
  "<A HREF='/Y' class=B>",
  "<br>",
  "</br>",
  "<img src=i.png>",
  "<template>",
  "</template>",
  "<svg>",
  "</svg>",
  "<math>",
  "<clipPath>",
  "<foreignObject>",
  "<title>",
  "</title>",
  "<script>",
  "</script>",
  "<textarea>",
  "</textarea>",
  "<!-- note -->",
  "<![CDATA[raw]]>",
  "<?php echo 1 ?>",
  "<!DOCTYPE html>",
  "<form>",
  "</form>",
  "<select><option>",
  "<h1>",
  "</h1>",
  "<span lang=EN>",
  "</span>",
  "text",
  " ",
  "\n  ",
  "&amp;",
  "&lt;b&gt;",
  "caf&eacute;",
  "&notanentity;",
  "<b",
  "<",
  ">",
  '<a href="unclosed>',
  // The rest of the parser's rules: implied ends, foreign content and its integration points, self-closing tags.
  "<image src=j.png>",
  "<path d=M0/>",
  "<input/>",
  "</foreignObject>",
  "</clippath>",
  "<desc>",
  "<mi>",
  "</math>",
  "<dd>",
  "<dt>",
  "<dl>",
  "<tbody>",
  "<tfoot>",
  "<tr>",
  "<th>",
  "<rt>",
  "<rp>",
  "<head>",
  "<body>",
  "<link rel=x>",
  "<hr>",
  "<option>",
  "<optgroup>",
  "<button>",
  "<h2>",
  "<li class=a class=b>",
  "<div CLASS=Up Class=down>",
];

function randomPage(next: () => number): string {
  return randomPieces(PIECES, next, 5, 60);
}

for (const [name, html] of Object.entries(AWKWARD_PAGES)) {
  Deno.test(`the light document holds the DOM's elements, parents and texts: ${name}`, () => {
    assertSameTree(html, name);
  });
}

Deno.test("the light document holds the DOM's elements, parents and texts: 6,000 seeded random pages", () => {
  const next = seededRandom(20261201);
  for (let i = 0; i < 6000; i++) {
    const html = randomPage(next);
    assertSameTree(html, `page ${i}: ${JSON.stringify(html)}`);
  }
});

/** Selectors a light document answers: names, attribute conditions, combinators, lists, Scrapy's endings. */
const SELECTORS = [
  "p",
  "P",
  "div p",
  "div > a",
  "a + a",
  "a ~ a",
  "ul li",
  "li > a[href]",
  "p.a",
  ".b",
  ".A",
  "#x",
  "#x a",
  "[class]",
  "[class~=b]",
  "[href^='/']",
  "[href$=png]",
  "[href*=Y]",
  "[lang|=en]",
  "[lang=en]",
  '[href="/x" i]',
  "a, img",
  "h1, p::text",
  "p::text",
  "div ::text",
  "a::attr(href)",
  "img::attr(src)",
  "*",
  "template",
  "template a",
  "svg a",
  "clippath",
  "title",
  "td",
  "option",
  "body *",
  "span",
];

/** What a callback can read of a selection, as one value to compare. */
function readable(selection: Selection) {
  return {
    length: selection.length,
    text: selection.text(),
    texts: selection.texts(),
    attrs: ["href", "class", "id", "src"].map((name) => selection.attrs(name)),
    attr: selection.attr("href"),
    each: [...selection].map((one) => [one.length, one.text(), one.attr("class")]),
    last: selection.get(-1).text(),
    nested: ["a", "p", "::text", "* ::text", "[href]::attr(href)", "a:first-child"].map((css) =>
      selection.css(css).texts()
    ),
    html: selection.get(0).html(),
    elements: selection.elements.map((element) => element.attribs),
  };
}

/** Selections a page reads from its light document give the DOM's answers to every question. */
function assertSameAnswers(html: string, label: string): void {
  for (const selector of SELECTORS) {
    const fast = page(html);
    const slow = domPage(html);
    let mine: unknown;
    let theirs: unknown;
    try {
      theirs = readable(slow.css(selector));
    } catch (error) {
      theirs = `throws ${(error as Error).message}`;
    }
    try {
      mine = readable(fast.css(selector));
    } catch (error) {
      mine = `throws ${(error as Error).message}`;
    }
    assert.deepEqual(mine, theirs, `${label}: ${selector}`);
  }
}

for (const [name, html] of Object.entries(AWKWARD_PAGES)) {
  Deno.test(`selections from the light document read as the DOM's: ${name}`, () => {
    assertSameAnswers(html, name);
  });
}

Deno.test("selections from the light document read as the DOM's: 300 seeded random pages", () => {
  const next = seededRandom(1201);
  for (let i = 0; i < 300; i++) {
    const html = randomPage(next);
    assertSameAnswers(html, `page ${i}: ${JSON.stringify(html)}`);
  }
});

Deno.test("a selection from the light document builds no DOM until asked for HTML or nodes", () => {
  const p = page(`<div class=quote><span class=text>“Be.”</span> <small class=author>Ann</small>
    <a class=tag href="/t/be">be</a><a class=tag href="/t/now">now</a></div>`);
  const quote = p.css("div.quote");
  assert.equal(quote.css("span.text::text").text(), "“Be.”");
  assert.equal(quote.css("small.author").text(), "Ann");
  assert.deepEqual(quote.css("a.tag::text").texts(), ["be", "now"]);
  assert.deepEqual(quote.css("a.tag::attr(href)").texts(), ["/t/be", "/t/now"]);
  assert.equal(p.lightBuilt, true);
  assert.equal(p.domBuilt, false);
  assert.equal(quote.css("a").get(1).html(), '<a class="tag" href="/t/now">now</a>');
  assert.equal(p.domBuilt, true);
});

Deno.test("a selector that does not parse throws the DOM's error from the light document's page too", () => {
  for (const selector of ["a[", "div >", ":nope", "a::attr(", ""]) {
    const outcome = (p: Page) => {
      try {
        return p.css(selector).length;
      } catch (error) {
        return `${(error as Error).name}: ${(error as Error).message}`;
      }
    };
    assert.deepEqual(outcome(page("<a href=x>x</a>")), outcome(domPage("<a href=x>x</a>")), selector);
  }
});
