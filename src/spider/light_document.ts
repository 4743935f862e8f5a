/**
 * A page's elements and text in flat arrays: what `css("h1").text()` and the other selectors callbacks write need, at
 * about the cost of the tokenizer alone (light_builder.ts builds it). A DOM (domhandler's) holds a node object for
 * every element, text and comment, each with six links to others; here an element keeps its name, its attributes, its
 * parent, where its descendants end in document order, and which texts it holds. Descendants are contiguous in
 * document order, so "under this element" is a range of indices, and an element's text is the texts of a range joined.
 *
 * It mirrors the DOM `parseDocument` builds: element i here is element i of the DOM in document order, with the same
 * name and attributes, and a text here is a DOM Text node, merged where DomHandler merges (adjacent text events with no
 * node between). So an answer read from here is the DOM's answer; tests/spider/light_document_test.ts holds the two
 * together.
 */
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

/** The elements and texts of a page, in document order. */
export class LightDocument {
  /** Filled by buildLightDocument, read-only after. */
  readonly elements: LightElement[] = [];
  /** The text nodes' contents, in document order. */
  readonly texts: string[] = [];
  /** Each text's parent element's index (-1 at the top of the document). */
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
