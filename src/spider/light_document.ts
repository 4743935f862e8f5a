/**
 * A page's elements and text in flat arrays, built in one pass of htmlparser2's parser: what `css("h1").text()` and
 * the other selectors callbacks write need, at about the cost of the parse alone. A DOM (domhandler's) holds a node
 * object for every element, text and comment, each with six links to others; here an element keeps its name, its
 * attributes (the parser's own objects), its parent, where its descendants end in document order, and which texts it
 * holds. Descendants are contiguous in document order, so "under this element" is a range of indices, and an
 * element's text is the texts of a range joined.
 *
 * It mirrors domhandler's DomHandler event for event (same parser, same options as `parseDocument`): element i here
 * is element i of the DOM in document order, with the same name and the same attribute object's contents, and a text
 * here is a DOM Text node, merged where DomHandler merges (adjacent text events with no node between). So an answer
 * read from here is the DOM's answer; tests/spider/light_document_test.ts holds the two together.
 */
import { type Handler, Parser } from "htmlparser2";
import { SkippingTokenizer } from "./skipping_tokenizer.ts";

/** One element, as the DOM has it, with its place in the page's arrays. */
export class LightElement {
  /** The document it is part of. */
  readonly document: LightDocument;
  /** The name as the parser gives it (lower case, but SVG's camelCase names keep their case). */
  readonly name: string;
  /** The name in lower case, as css() compares names. */
  readonly lowerName: string;
  readonly attribs: Record<string, string>;
  /** The parent element; null at the top of the document. */
  readonly parent: LightElement | null;
  /** Its index in document order. */
  readonly index: number;
  /** The nearest `<template>` ancestor's index, -1 when none: css() does not search a template's content. */
  readonly template: number;
  /** One past the index of its last descendant (its descendants are index + 1 up to end). */
  end = -1;
  /** Its texts are texts[textStart] up to texts[textEnd]. */
  readonly textStart: number;
  textEnd = -1;

  constructor(
    document: LightDocument,
    name: string,
    attribs: Record<string, string>,
    parent: LightElement | null,
    index: number,
    textStart: number,
  ) {
    this.document = document;
    this.name = name;
    this.lowerName = name.toLowerCase();
    this.attribs = attribs;
    this.parent = parent;
    this.index = index;
    this.template = parent === null ? -1 : parent.lowerName === "template" ? parent.index : parent.template;
    this.textStart = textStart;
  }
}

/** A text that belongs to a CDATA section rather than to an element: part of the text, no element's own. */
const IN_CDATA = -2;

/** The elements and texts of a page, in document order. */
export class LightDocument {
  /** Filled by buildLightDocument, read-only after. */
  readonly elements: LightElement[] = [];
  /** The text nodes' contents, in document order. */
  readonly texts: string[] = [];
  /** Each text's parent element's index (-1 at the top of the document, IN_CDATA inside a CDATA section). */
  readonly textParents: number[] = [];

  /** An element's whole text: every text under it (domutils' textContent). */
  textContent(element: LightElement): string {
    const { textStart, textEnd } = element;
    if (textEnd - textStart === 1) return this.texts[textStart];
    let text = "";
    for (let i = textStart; i < textEnd; i++) text += this.texts[i];
    return text;
  }

  /** The texts that are an element's own children (Scrapy's `el::text`). */
  ownText(element: LightElement): string {
    let text = "";
    for (let i = element.textStart; i < element.textEnd; i++) {
      if (this.textParents[i] === element.index) text += this.texts[i];
    }
    return text;
  }

  /** An element's children that are elements, in order. */
  childrenOf(element: LightElement | null): LightElement[] {
    const children: LightElement[] = [];
    const elements = this.elements;
    // The first child is the next element; each next sibling starts where the one before ends.
    let i = element === null ? 0 : element.index + 1;
    const end = element === null ? elements.length : element.end;
    while (i < end) {
      children.push(elements[i]);
      i = elements[i].end;
    }
    return children;
  }
}

/** Builds the light document of an HTML text, as `parseDocument(html)` would build its DOM. */
export function buildLightDocument(html: string): LightDocument {
  const document = new LightDocument();
  const { elements, texts, textParents } = document;
  const open: LightElement[] = [];
  let current: LightElement | null = null;
  // The text DomHandler would append the next text event to (its lastNode when that is a Text), else -1.
  let mergeInto = -1;
  let inCdata = false;
  const handler: Partial<Handler> = {
    onopentag(name, attribs) {
      const element: LightElement = new LightElement(document, name, attribs, current, elements.length, texts.length);
      elements.push(element);
      open.push(element);
      current = element;
      mergeInto = -1;
    },
    onclosetag() {
      mergeInto = -1;
      const element = open.pop();
      if (element === undefined) return;
      element.end = elements.length;
      element.textEnd = texts.length;
      current = open.length === 0 ? null : open[open.length - 1];
    },
    ontext(data) {
      if (mergeInto >= 0) {
        texts[mergeInto] += data;
        return;
      }
      mergeInto = texts.length;
      texts.push(data);
      textParents.push(inCdata ? IN_CDATA : current === null ? -1 : current.index);
    },
    oncomment() {
      mergeInto = -1;
    },
    oncommentend() {
      mergeInto = -1;
    },
    oncdatastart() {
      // DomHandler starts an empty Text inside the CDATA node, which the section's text events then fill.
      mergeInto = texts.length;
      texts.push("");
      textParents.push(IN_CDATA);
      inCdata = true;
    },
    oncdataend() {
      mergeInto = -1;
      inCdata = false;
    },
    onprocessinginstruction() {
      mergeInto = -1;
    },
  };
  new Parser(handler, { Tokenizer: SkippingTokenizer }).end(html);
  // Elements the page never closed end with it, as they do in the DOM.
  for (const element of open) {
    element.end = elements.length;
    element.textEnd = texts.length;
  }
  return document;
}
