/**
 * Builds a page's light document (light_document.ts) straight from htmlparser2's tokenizer, without its `Parser`.
 *
 * The light document mirrors the DOM `parseDocument` builds: htmlparser2's `Parser` (tag names in lower case, the
 * elements an opening tag closes, void elements, foreign content) feeding domhandler's `DomHandler`. Here one object
 * takes the tokenizer's events and does what the two do between them, for the one configuration Netweir parses with
 * (HTML, entities decoded, the options' defaults), keeping the parser's rules and quirks as they are: a second `<form>`
 * ignored, `</p>` with no `<p>` open making an empty one, `</br>` a `<br>`, `<image>` an `<img>` outside foreign
 * content, SVG's camelCase names. The `Parser` spent its time on what a general parser needs and this one does not:
 * optional callbacks looked up on every event, a stack grown and shrunk at its front, offsets kept for every node,
 * slices taken across a list of chunks, an attribute event per attribute. A product page of the link shop is built in
 * 116 µs instead of 134 (docs/design/engine.md, "Session 9").
 *
 * tests/spider/light_document_test.ts holds the result to stock `parseDocument`'s DOM, element for element (names,
 * attributes, parents, children, texts), on awkward pages and thousands of generated ones.
 */
import { LightDocument, LightElement } from "./light_document.ts";
import { SkippingTokenizer } from "./skipping_tokenizer.ts";
import { KNOWN_ATTRIBUTES, KNOWN_TAGS } from "./known_names.ts";

const fromCodePoint = String.fromCodePoint;

/** Names of tags that close, while they are the innermost open ones, those of the key when it opens. */
const CLOSED_BY_OPENING = new Map<string, ReadonlySet<string>>();
{
  const closes = (opening: readonly string[], closed: readonly string[]) => {
    const set = new Set(closed);
    for (const name of opening) CLOSED_BY_OPENING.set(name, set);
  };
  const p = ["p"];
  closes(["tr"], ["tr", "th", "td"]);
  closes(["th"], ["th"]);
  closes(["td"], ["thead", "th", "td"]);
  closes(["body"], ["head", "link", "script"]);
  closes(["a"], ["a"]);
  closes(["li"], ["li"]);
  closes(["p"], p);
  closes(["h1", "h2", "h3", "h4", "h5", "h6"], ["h1", "h2", "h3", "h4", "h5", "h6", "p"]);
  closes(
    ["select", "input", "output", "button", "datalist", "textarea"],
    ["input", "option", "optgroup", "select", "button", "datalist", "textarea"],
  );
  closes(["option"], ["option"]);
  closes(["optgroup"], ["optgroup", "option"]);
  closes(["dd", "dt"], ["dd", "dt"]);
  closes([
    "address",
    "article",
    "aside",
    "blockquote",
    "details",
    "div",
    "dl",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "header",
    "hr",
    "main",
    "nav",
    "ol",
    "pre",
    "section",
    "table",
    "ul",
  ], p);
  closes(["rt", "rp"], ["rt", "rp"]);
  closes(["tbody", "tfoot"], ["thead", "tbody"]);
}

/** Elements that have no content and no closing tag. */
const VOID = new Set([
  "area",
  "base",
  "basefont",
  "br",
  "col",
  "command",
  "embed",
  "frame",
  "hr",
  "img",
  "input",
  "isindex",
  "keygen",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
]);

/** Where the parser is: HTML, or inside `<svg>` or `<math>` (where `/>` closes a tag and CDATA is text). */
const enum Context {
  Html,
  Svg,
  MathMl,
}

/** HTML inside foreign content: these go back to HTML's rules. */
const HTML_INTEGRATION = new Set(["mi", "mo", "mn", "ms", "mtext", "annotation-xml", "foreignObject", "desc", "title"]);

/** SVG element names as the parser writes them, from their lower-case spelling. */
const SVG_NAMES = new Map(
  [
    "altGlyph",
    "altGlyphDef",
    "altGlyphItem",
    "animateColor",
    "animateMotion",
    "animateTransform",
    "clipPath",
    "feBlend",
    "feColorMatrix",
    "feComponentTransfer",
    "feComposite",
    "feConvolveMatrix",
    "feDiffuseLighting",
    "feDisplacementMap",
    "feDistantLight",
    "feDropShadow",
    "feFlood",
    "feFuncA",
    "feFuncB",
    "feFuncG",
    "feFuncR",
    "feGaussianBlur",
    "feImage",
    "feMerge",
    "feMergeNode",
    "feMorphology",
    "feOffset",
    "fePointLight",
    "feSpecularLighting",
    "feSpotLight",
    "feTile",
    "feTurbulence",
    "foreignObject",
    "glyphRef",
    "linearGradient",
    "radialGradient",
    "textPath",
  ].map((name) => [name.toLowerCase(), name]),
);

/** Builds the light document of an HTML text, as `parseDocument(html)` would build its DOM. */
export function buildLightDocument(html: string): LightDocument {
  const builder = new LightBuilder(html);
  const tokenizer = new SkippingTokenizer({}, builder);
  tokenizer.write(html);
  tokenizer.end();
  return builder.finish();
}

/**
 * The tokenizer's listener. Two stacks, as in the parser and DomHandler: the names of the tags open (the parser's, by
 * which closing tags are matched, and pushed as soon as a tag's name is read) and the elements open (DomHandler's, the
 * top of which is a new element's parent, pushed once its attributes are read). Each is kept as its owner keeps it,
 * so the tree comes out the same.
 */
class LightBuilder {
  readonly #html: string;
  readonly #document = new LightDocument();
  /** Names of the open tags, innermost last. */
  readonly #names: string[] = [];
  /** The context of each open foreign-content or integration element, and HTML's at the bottom; current last. */
  readonly #contexts: Context[] = [Context.Html];
  /** The elements open, innermost last, and the innermost (null at the top of the document). */
  readonly #open: LightElement[] = [];
  #current: LightElement | null = null;
  /** The tag being read: its name ("" for one ignored), attributes (null when none is being read). */
  #tagName = "";
  #attribs: Record<string, string> | null = null;
  #attribName = "";
  #attribValue = "";
  /** The text the next text joins (DomHandler merges adjacent texts), or -1. */
  #mergeInto = -1;

  constructor(html: string) {
    this.#html = html;
  }

  finish(): LightDocument {
    const { elements, texts } = this.#document;
    // Elements the page never closed end with it, as they do in the DOM.
    for (const element of this.#open) {
      element.end = elements.length;
      element.textEnd = texts.length;
    }
    return this.#document;
  }

  // What DomHandler does with the parser's events.

  #openElement(name: string, attribs: Record<string, string>): void {
    const { elements, texts } = this.#document;
    const element = new LightElement(this.#document, name, attribs, this.#current, elements.length, texts.length);
    elements.push(element);
    this.#open.push(element);
    this.#current = element;
    this.#mergeInto = -1;
  }

  #closeElement(): void {
    this.#mergeInto = -1;
    const element = this.#open.pop();
    if (element === undefined) return;
    element.end = this.#document.elements.length;
    element.textEnd = this.#document.texts.length;
    const open = this.#open;
    this.#current = open.length === 0 ? null : open[open.length - 1];
  }

  #text(data: string): void {
    const { texts, textParents } = this.#document;
    if (this.#mergeInto >= 0) {
      texts[this.#mergeInto] += data;
      return;
    }
    this.#mergeInto = texts.length;
    texts.push(data);
    textParents.push(this.#current === null ? -1 : this.#current.index);
  }

  // The parser's rules.

  #inForeignContent(): boolean {
    return this.#contexts[this.#contexts.length - 1] !== Context.Html;
  }

  #tagNameAt(start: number, end: number): string {
    const html = this.#html;
    const name = KNOWN_TAGS.find(html, start, end) ?? html.slice(start, end).toLowerCase();
    const context = this.#contexts[this.#contexts.length - 1];
    if (context === Context.Svg) return SVG_NAMES.get(name) ?? name;
    if (this.#contexts.length > 1) {
      // Under foreign content, a closing tag of an SVG element (an integration point, </foreignObject>) keeps the
      // spelling its open tag was given.
      const adjusted = SVG_NAMES.get(name);
      if (adjusted !== undefined && this.#names.includes(adjusted)) return adjusted;
    }
    if (context === Context.Html) return name === "image" ? "img" : name;
    return name;
  }

  #openTag(name: string): void {
    this.#tagName = name;
    // A <form> inside a form is ignored, attributes and all; its end tag closes the outer one.
    if (name === "form" && this.#names.includes("form")) {
      this.#tagName = "";
      return;
    }
    const names = this.#names;
    const closed = CLOSED_BY_OPENING.get(name);
    if (closed !== undefined) {
      while (names.length > 0 && closed.has(names[names.length - 1])) this.#popTag();
    }
    if (!VOID.has(name)) {
      names.push(name);
      if (name === "svg") this.#contexts.push(Context.Svg);
      else if (name === "math") this.#contexts.push(Context.MathMl);
      else if (HTML_INTEGRATION.has(name)) this.#contexts.push(Context.Html);
    }
    this.#attribs = {};
  }

  #endOpenTag(): void {
    const name = this.#tagName;
    if (this.#attribs !== null) {
      this.#openElement(name, this.#attribs);
      this.#attribs = null;
    }
    if (VOID.has(name)) this.#closeElement();
    this.#tagName = "";
  }

  #popTag(): void {
    const name = this.#names.pop()!;
    if (name === "svg" || name === "math" || HTML_INTEGRATION.has(name)) this.#contexts.pop();
    this.#closeElement();
  }

  /** Ends the tag being read and closes it at once, when it is the innermost open one. */
  #closeCurrentTag(): void {
    const name = this.#tagName;
    this.#endOpenTag();
    if (this.#names[this.#names.length - 1] === name) this.#popTag();
  }

  // The tokenizer's events (htmlparser2's Tokenizer Callbacks).

  ontext(start: number, end: number): void {
    this.#text(this.#html.slice(start, end));
  }

  ontextentity(codePoint: number): void {
    this.#text(fromCodePoint(codePoint));
  }

  isInForeignContext(): boolean {
    return this.#inForeignContent();
  }

  onopentagname(start: number, end: number): void {
    this.#openTag(this.#tagNameAt(start, end));
  }

  onopentagend(): void {
    this.#endOpenTag();
  }

  onselfclosingtag(): void {
    // `/>` closes a tag only in foreign content; in HTML it is ignored.
    if (this.#inForeignContent()) this.#closeCurrentTag();
    else this.#endOpenTag();
  }

  onclosetag(start: number, end: number): void {
    const name = this.#tagNameAt(start, end);
    if (!VOID.has(name)) {
      const names = this.#names;
      const at = names.lastIndexOf(name);
      if (at !== -1) {
        // The tags opened inside it and left open end with it.
        while (names.length > at) this.#popTag();
      } else if (name === "p") {
        // </p> with no <p> open: an empty paragraph.
        this.#openTag("p");
        this.#closeCurrentTag();
      }
    } else if (name === "br") {
      // </br> is a <br>.
      this.#openElement("br", {});
      this.#closeElement();
    }
  }

  onattribname(start: number, end: number): void {
    const html = this.#html;
    this.#attribName = KNOWN_ATTRIBUTES.find(html, start, end) ?? html.slice(start, end).toLowerCase();
  }

  onattribdata(start: number, end: number): void {
    this.#attribValue += this.#html.slice(start, end);
  }

  onattribentity(codePoint: number): void {
    this.#attribValue += fromCodePoint(codePoint);
  }

  onattribend(): void {
    // The first of an attribute given twice counts.
    const attribs = this.#attribs;
    if (attribs !== null) {
      const name = this.#attribName;
      const before = attribs[name];
      // A string is an attribute already given (Object.prototype has no string property); undefined is none, and
      // anything else is inherited ("constructor"), which only hasOwn tells apart.
      if (before === undefined || (typeof before !== "string" && !Object.hasOwn(attribs, name))) {
        attribs[name] = this.#attribValue;
      }
    }
    this.#attribValue = "";
  }

  oncomment(): void {
    this.#mergeInto = -1;
  }

  oncdata(start: number, end: number, endOffset: number): void {
    // In HTML a CDATA section is a comment; in foreign content, text.
    if (this.#inForeignContent()) this.#text(this.#html.slice(start, end - endOffset));
    else this.#mergeInto = -1;
  }

  ondeclaration(): void {
    this.#mergeInto = -1;
  }

  onprocessinginstruction(): void {
    this.#mergeInto = -1;
  }

  onend(): void {
    // Tags left open end with the page: finish() ends their elements.
  }
}
