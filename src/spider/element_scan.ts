/**
 * The elements of some names in an HTML page, with their attributes, found without building a DOM: what
 * `page.css("a").attrs("href")` and `page.links()` need. The answer is the DOM's to the letter (the elements
 * parseDocument would build, in document order, outside `<template>` contents, which css() does not search, with
 * the same attribute objects), got one of two ways:
 *
 * - the tokenizer alone, for pages without `<svg>`, `<math>` or `<template>` and names other than p, br and form
 *   (the scan starts over with the parser on the first of those tags):
 *   there every start tag is one element, named as written in lower case (`<image>` being img), and only the
 *   wanted tags' attributes are read. This is about half the cost of the parser and a third of a DOM;
 * - htmlparser2's parser otherwise, which knows foreign content (where `<title>` and `<style>` are no raw text and
 *   tag names keep their case), implied and suppressed elements (`</p>`, `</br>`, a second `<form>`) and which
 *   elements an end tag closes (so which ones a template holds).
 */
import { LinearParser } from "./linear_parser.ts";
import { SkippingTokenizer } from "./skipping_tokenizer.ts";

/** An element as the DOM would have it: its name in lower case, and its attributes. */
export interface ScannedElement {
  name: string;
  attribs: Record<string, string>;
}

/** Names the parser makes elements of without a start tag, or drops one of. */
const PARSER_NAMES = new Set(["p", "br", "form"]);

/** Thrown by the tokenizer scan on a tag it cannot read alone (svg, math, template): the parser takes over. */
const NEEDS_PARSER = Symbol("needs the parser");

/** The elements named in `names` (lower case), in document order, as the page's DOM has them. */
export function scanElements(html: string, names: ReadonlySet<string>): ScannedElement[] {
  for (const name of names) if (PARSER_NAMES.has(name)) return parserScan(html, names);
  try {
    return tokenizerScan(html, names);
  } catch (error) {
    if (error !== NEEDS_PARSER) throw error;
    return parserScan(html, names);
  }
}

/** Whether the tag name at html[start, start + length) is svg, math or template, in any case. */
function foreignOrTemplate(html: string, start: number, length: number): boolean {
  const at = (i: number) => html.charCodeAt(start + i) | 0x20; // ASCII lower case (letters only matter here)
  if (length === 3) return at(0) === 0x73 && at(1) === 0x76 && at(2) === 0x67; // svg
  if (length === 4) return at(0) === 0x6d && at(1) === 0x61 && at(2) === 0x74 && at(3) === 0x68; // math
  return length === 8 && html.slice(start, start + 8).toLowerCase() === "template";
}

function tokenizerScan(html: string, names: ReadonlySet<string>): ScannedElement[] {
  const found: ScannedElement[] = [];
  // Only names of a wanted length are sliced and lower-cased (`image`, five letters, is how img may be written).
  const lengths = new Set<number>();
  for (const name of names) lengths.add(name.length);
  if (names.has("img")) lengths.add(5);
  let current: ScannedElement | undefined;
  let attribute = "";
  let value = "";
  const ignore = () => {};
  const endTag = () => {
    if (current) found.push(current);
    current = undefined;
  };
  const tokenizer = new SkippingTokenizer({ decodeEntities: true }, {
    onopentagname(start, end) {
      current = undefined;
      const length = end - start;
      if ((length === 3 || length === 4 || length === 8) && foreignOrTemplate(html, start, length)) throw NEEDS_PARSER;
      if (!lengths.has(length)) return;
      let name = html.slice(start, end).toLowerCase();
      if (name === "image") name = "img";
      if (names.has(name)) current = { name, attribs: {} };
    },
    onattribname(start, end) {
      if (current) attribute = html.slice(start, end).toLowerCase();
    },
    onattribdata(start, end) {
      if (current) value += html.slice(start, end);
    },
    onattribentity(codePoint) {
      if (current) value += String.fromCodePoint(codePoint);
    },
    onattribend() {
      // The first of duplicate attributes counts, as in the parser.
      if (current && !Object.hasOwn(current.attribs, attribute)) current.attribs[attribute] = value;
      value = "";
    },
    // Outside foreign content a self-closing tag is an open tag, as the parser reads it.
    onopentagend: endTag,
    onselfclosingtag: endTag,
    oncdata: ignore,
    onclosetag: ignore,
    oncomment: ignore,
    ondeclaration: ignore,
    onend: ignore,
    onprocessinginstruction: ignore,
    ontext: ignore,
    ontextentity: ignore,
  });
  tokenizer.write(html);
  tokenizer.end();
  return found;
}

function parserScan(html: string, names: ReadonlySet<string>): ScannedElement[] {
  const found: ScannedElement[] = [];
  // The open elements, as the DOM builder stacks them: whether each is a template.
  const open: boolean[] = [];
  let templates = 0;
  const parser = new LinearParser({
    onopentag(name, attribs) {
      // Compared in lower case, as css() compares names (SVG keeps camelCase names such as clipPath).
      const lower = name.toLowerCase();
      if (templates === 0 && names.has(lower)) found.push({ name: lower, attribs });
      const template = lower === "template";
      open.push(template);
      if (template) templates++;
    },
    onclosetag() {
      if (open.pop()) templates--;
    },
  }, { Tokenizer: SkippingTokenizer });
  parser.end(html);
  return found;
}
