/**
 * src/spider/linear_parser.ts: htmlparser2's Parser with its stacks at the end of arrays builds the same DOM as the
 * Parser itself, and in time that grows with the page's size alone.
 */
import assert from "node:assert/strict";
import render from "dom-serializer";
import { parseDocument } from "htmlparser2";
import { parseHtmlDocument } from "../../src/spider/linear_parser.ts";
import { SkippingTokenizer } from "../../src/spider/skipping_tokenizer.ts";
import { AWKWARD_PAGES } from "../helpers/awkward_html.ts";

/** More that exercises the stacks: end tags of tags not open, implied closes, forms, foreign content, end of input. */
const STACK_PAGES = [
  `<div><span><p>a</div></span>b</p><li>1<li>2</ul></li><form><form></form></form><table><td>x</table>`,
  `<svg><foreignObject><div><svg><clipPath><path/></clipPath></svg></div></foreignObject><g></svg><math><mi>x</math>`,
  `<html><body><div><div><section><p>open at the end<b><i>`,
  `<select><option>1<option>2<optgroup><option>3</select><dl><dt>a<dd>b<dt>c</dl><h1><h2>x</h1></h2>`,
];

Deno.test("builds the DOM htmlparser2's Parser builds, node for node", () => {
  const pages = [...Object.values(AWKWARD_PAGES), ...STACK_PAGES];
  for (const html of pages) {
    const expected = render(parseDocument(html, { Tokenizer: SkippingTokenizer }));
    assert.equal(render(parseHtmlDocument(html)), expected, html);
  }
  assert.ok(pages.length > 10);
});

/** The fewest milliseconds parsing `html` took over a few runs. */
function parseMs(html: string): number {
  let ms = Infinity;
  for (let run = 0; run < 3; run++) {
    const start = performance.now();
    parseHtmlDocument(html);
    ms = Math.min(ms, performance.now() - start);
  }
  return ms;
}

Deno.test("a page nested 100,000 deep parses about as fast as a flat page of the same size", () => {
  const count = 100_000;
  const deep = `<html><body>${"<div>".repeat(count)}x${"</div>".repeat(count)}</body></html>`;
  const flat = `<html><body>${"<div></div>".repeat(count)}x</body></html>`;
  assert.equal(deep.length, flat.length);
  const nested = parseMs(deep);
  const side = parseMs(flat);
  const ratio = nested / side;
  console.log(`parse: ${nested.toFixed(0)} ms nested, ${side.toFixed(0)} ms flat, ratio ${ratio.toFixed(1)}`);
  // The stock Parser made it 20 to 40 times here (n²/2 array copies); linear, a few times at most. The bound is
  // wide because eight people share this machine's two cores.
  assert.ok(ratio < 8, `nested ${nested} ms against flat ${side} ms`);
});
