/**
 * The skipping tokenizer (src/spider/skipping_tokenizer.ts) against htmlparser2's own: every event, with its offsets,
 * in the same order, on awkward pages and generated ones, written whole and in chunks.
 */
import assert from "node:assert/strict";
import { Parser, Tokenizer } from "htmlparser2";
import { SkippingTokenizer } from "../../src/spider/skipping_tokenizer.ts";
import { AWKWARD_PAGES } from "../helpers/awkward_html.ts";
import { randomPieces, seededRandom } from "../helpers/seeded_random.ts";

type Event = Array<string | number | boolean | undefined>;

const CALLBACKS = [
  "onattribdata",
  "onattribentity",
  "onattribend",
  "onattribname",
  "oncdata",
  "onclosetag",
  "oncomment",
  "ondeclaration",
  "onend",
  "onopentagend",
  "onopentagname",
  "onprocessinginstruction",
  "onselfclosingtag",
  "ontext",
  "ontextentity",
];

type TokenizerClass = typeof Tokenizer;
interface Options {
  xmlMode?: boolean;
  decodeEntities?: boolean;
}

/** Every event a tokenizer gives for `chunks` written one after the other. */
function events(Class: TokenizerClass, chunks: string[], options: Options = {}): Event[] {
  const seen: Event[] = [];
  const callbacks: Record<string, (...args: Array<string | number>) => void> = {};
  for (const name of CALLBACKS) callbacks[name] = (...args) => void seen.push([name, ...args]);
  const tokenizer = new Class({ decodeEntities: true, ...options }, callbacks as never);
  for (const chunk of chunks) tokenizer.write(chunk);
  tokenizer.end();
  return seen;
}

/** The events a parser passes on (names, attributes, texts), with the stock tokenizer or the skipping one. */
function parserEvents(html: string, skipping: boolean): Event[] {
  const seen: Event[] = [];
  const parser = new Parser({
    onopentag: (name, attribs) => void seen.push(["open", name, JSON.stringify(attribs)]),
    onclosetag: (name, implied) => void seen.push(["close", name, implied]),
    ontext: (text) => void seen.push(["text", text]),
    oncomment: (text) => void seen.push(["comment", text]),
    onprocessinginstruction: (name, data) => void seen.push(["instruction", name, data]),
  }, skipping ? { Tokenizer: SkippingTokenizer } : {});
  parser.end(html);
  return seen;
}

const PIECES = [
  "<p>",
  "</p>",
  '<a href="/x?a=1&amp;b=2">',
  "<a href='/y&z'>",
  "<a href=/bare&amp;x>",
  '<img alt="a &lt; b" src="i.png">',
  '<div class="c" data-x="&#x41;&#66;">',
  "</div>",
  "</a>",
  "text with no markup at all ",
  "caf&eacute; ",
  "&amp;",
  "& ",
  "&notanentity;",
  "&#",
  "&lt",
  "AT&T",
  "<script>if (a < b && c) x = '</scr' + 'ipt>';</script>",
  "<style>a > b { content: '&amp;' }</style>",
  "<title>A &amp; B</title>",
  "<textarea>x &lt; y</textarea>",
  "<!-- a comment with <tags> & amps -->",
  "<![CDATA[raw & <b>]]>",
  "<?xml version='1.0'?>",
  "<!DOCTYPE html>",
  "<svg><title>t</title></svg>",
  "<br/>",
  '<input value="unclosed',
  "<a title='unclosed",
  "\n    ",
  "<",
  ">",
  "&",
  '"',
  "'",
  "<b",
];

function randomPage(next: () => number): string {
  return randomPieces(PIECES, next, 1, 40);
}

/** `html` cut into pieces at random places (the tokenizer keeps its state across writes). */
function chunked(html: string, next: () => number): string[] {
  const chunks: string[] = [];
  let at = 0;
  while (at < html.length) {
    const size = 1 + Math.floor(next() * 24);
    chunks.push(html.slice(at, at + size));
    at += size;
  }
  return chunks;
}

Deno.test("the skipping tokenizer replaces the text and quoted-value states and the fast-forward of htmlparser2's", () => {
  // Were htmlparser2 to rename them, the replacement would silently not happen: this says so.
  const own = SkippingTokenizer.prototype as unknown as Record<string, unknown>;
  const stock = Tokenizer.prototype as unknown as Record<string, unknown>;
  const methods = [
    "stateText",
    "stateInAttributeValueDoubleQuotes",
    "stateInAttributeValueSingleQuotes",
    "fastForwardTo",
  ];
  for (const method of methods) {
    assert.equal(typeof stock[method], "function", method);
    assert.notEqual(own[method], stock[method], method);
  }
});

Deno.test("the skipping tokenizer gives htmlparser2's events, offsets included, on the awkward pages", () => {
  for (const [name, html] of Object.entries(AWKWARD_PAGES)) {
    assert.deepEqual(events(SkippingTokenizer, [html]), events(Tokenizer, [html]), name);
    assert.deepEqual(parserEvents(html, true), parserEvents(html, false), name);
  }
});

Deno.test("the skipping tokenizer gives htmlparser2's events on 3,000 generated pages, whole and in chunks", () => {
  const next = seededRandom(202612);
  for (let i = 0; i < 3_000; i++) {
    const html = randomPage(next);
    assert.deepEqual(events(SkippingTokenizer, [html]), events(Tokenizer, [html]), html);
    const chunks = chunked(html, next);
    assert.deepEqual(events(SkippingTokenizer, chunks), events(Tokenizer, chunks), JSON.stringify(chunks));
    if (i % 10 === 0) assert.deepEqual(parserEvents(html, true), parserEvents(html, false), html);
  }
});

Deno.test("the skipping tokenizer is htmlparser2's without entity decoding and in XML mode", () => {
  const next = seededRandom(1202);
  for (let i = 0; i < 300; i++) {
    const html = randomPage(next);
    for (const options of [{ decodeEntities: false }, { xmlMode: true }]) {
      assert.deepEqual(events(SkippingTokenizer, [html], options), events(Tokenizer, [html], options), html);
    }
  }
});

Deno.test("the skipping tokenizer: a page with no markup, an empty one, and ampersands at the very end", () => {
  for (const html of ["", "plain text only", "a & b &", "x &amp", '<a href="&', "<a href='&amp;", "tail<"]) {
    assert.deepEqual(events(SkippingTokenizer, [html]), events(Tokenizer, [html]), JSON.stringify(html));
  }
  // Long text runs between many ampersands and none at all: the remembered position of the next `&` stays right.
  const script = "<script>" + "var a = 1; ".repeat(3_000) + "if (a < 2) {}</script><!--" + "- ".repeat(2_000) + "-->";
  assert.deepEqual(events(SkippingTokenizer, [script]), events(Tokenizer, [script]));
  assert.deepEqual(
    events(SkippingTokenizer, [script], { decodeEntities: false }),
    events(Tokenizer, [script], { decodeEntities: false }),
  );
  const long = "word ".repeat(2_000) + "&amp;" + "<b>x</b>".repeat(500) + "more & more " + "z".repeat(5_000);
  assert.deepEqual(events(SkippingTokenizer, [long]), events(Tokenizer, [long]));
  assert.deepEqual(
    events(SkippingTokenizer, chunked(long, seededRandom(7))),
    events(Tokenizer, chunked(long, seededRandom(7))),
  );
});
