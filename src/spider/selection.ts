/**
 * Selections: the elements a CSS selector matched on a page, with the reading methods callbacks use (`text`,
 * `attr`, `attrs`, `html`) and Scrapy's `::text` / `::attr(name)` endings as sugar.
 */
import { compile } from "css-select";
import { type AnyNode, type Document, type Element, isTag, isText } from "domhandler";
import * as DomUtils from "domutils";
import { textContent } from "domutils";
import render from "dom-serializer";
import type { ScannedElement } from "./element_scan.ts";
import type { LightElement } from "./light_document.ts";
import { selectLight } from "./light_select.ts";
import { searchAll } from "./dom_search.ts";
import { xpathEngine } from "./xpath_load.ts";
import type { XPathOptions } from "./xpath_select.ts";
import type { XPathSelection } from "./xpath_selection.ts";
import { withCachedDescendants } from "./descendant_cache.ts";

/**
 * What a selection reads when asked for text: the whole text of each element (`"element"`, also the mode of
 * `"div ::text"`), only its own text nodes (`"own"`, `"h1::text"`), or one attribute (`"a::attr(href)"`).
 */
export type SelectionMode =
  | { kind: "element" }
  | { kind: "own" }
  | { kind: "attr"; name: string };

const ELEMENT: SelectionMode = { kind: "element" };
const OWN: SelectionMode = { kind: "own" };

/** A selector with its Scrapy-style ending taken off. */
export interface ParsedSelector {
  /** The CSS part; "" means the selection itself. */
  css: string;
  mode: SelectionMode;
}

const PSEUDO = /::(?:text|attr\(\s*([^()\s]+)\s*\))\s*$/;

/** Splits a selector list on its top-level commas (not those inside (), [] or quotes). */
function splitSelectorList(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = "";
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const ch = selector[i];
    if (quote) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = "";
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === "(" || ch === "[") depth++;
    else if (ch === ")" || ch === "]") depth--;
    else if (ch === "," && depth === 0) {
      parts.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(selector.slice(start));
  return parts;
}

/**
 * Takes `::text` / `::attr(name)` off the end of a selector (of every member of a selector list, which must then
 * all end the same way). `"p::text"` reads each p's own text nodes; `"p ::text"` (a space before) reads all the
 * text under each p, as Scrapy's descendant text does.
 */
export function parseSelector(selector: string): ParsedSelector {
  if (!selector.includes("::")) return { css: selector, mode: ELEMENT };
  const parts = splitSelectorList(selector);
  let mode: SelectionMode | undefined;
  let key = "";
  const stripped: string[] = [];
  for (const part of parts) {
    const match = PSEUDO.exec(part);
    if (!match) throw new SyntaxError(`selector ${JSON.stringify(selector)} mixes ::text/::attr() members and others`);
    const before = part.slice(0, match.index);
    const deep = before.trim() !== "" && /\s$/.test(before);
    const partMode: SelectionMode = match[1] !== undefined
      ? { kind: "attr", name: match[1].toLowerCase() }
      : deep
      ? ELEMENT
      : OWN;
    const partKey = partMode.kind === "attr" ? `attr:${partMode.name}` : partMode.kind;
    if (mode && partKey !== key) {
      throw new SyntaxError(`selector ${JSON.stringify(selector)}: every member must end the same way`);
    }
    mode = partMode;
    key = partKey;
    stripped.push(before.trim());
  }
  if (stripped.some((part) => part === "") && stripped.some((part) => part !== "")) {
    throw new SyntaxError(`selector ${JSON.stringify(selector)}: an empty member cannot be mixed with others`);
  }
  return { css: stripped.every((part) => part === "") ? "" : stripped.join(", "), mode: mode ?? ELEMENT };
}

/** The text of an element's own text nodes (not its descendants'), as Scrapy's `el::text`. */
function ownText(node: AnyNode): string {
  if (!("children" in node)) return isText(node) ? node.data : "";
  let text = "";
  for (const child of node.children) if (isText(child)) text += child.data;
  return text;
}

/** A selector (or one of a group) that starts with a combinator, or uses :scope. */
const RELATIVE = /(^|,)\s*[>+~]|:scope/i;

/** Compiled selectors kept, at most: a spider uses a handful, called on every page. */
const COMPILED_MAX = 512;
/**
 * Compiled CSS selectors by their text. css-select compiles a selector string on every call; a callback that runs
 * ten selectors on each of thousands of pages made compiling them a good part of a crawl's garbage. The compiled
 * queries are pure functions of the selector, so sharing them between crawls shares no state of a crawl.
 */
type CompiledQuery = ReturnType<typeof compile<AnyNode, Element>>;
const compiledSelectors = new Map<string, CompiledQuery>();

/**
 * css-select lower-cases a selector's tag names (HTML is case-insensitive) but compares them with the DOM's names
 * as they are, and the parser keeps SVG's camelCase (`clipPath`, `linearGradient`), so `css("clipPath")` found
 * nothing while `links()` saw the links inside. Names are compared in lower case on both sides: `clipPath` and
 * `clippath` both match.
 */
const SELECT_OPTIONS = {
  adapter: { ...DomUtils, isTag, getName: (element: Element) => element.name.toLowerCase() },
};

function compiledSelector(css: string): CompiledQuery {
  let query = compiledSelectors.get(css);
  if (query === undefined) {
    query = compile<AnyNode, Element>(withCachedDescendants(css), SELECT_OPTIONS);
    // Oldest first out: a spider that builds selectors from data cannot grow the map without end.
    if (compiledSelectors.size >= COMPILED_MAX) compiledSelectors.delete(compiledSelectors.keys().next().value!);
    compiledSelectors.set(css, query);
  }
  return query;
}

/** css-select's answer on DOM nodes: a single Document searched below it, elements searched including themselves. */
function domSelect(css: string, nodes: readonly (Element | Document)[]): Element[] {
  if (nodes.length === 0) return [];
  // Relative selectors ("> li", ":scope li") mean something only against the elements searched, which css-select
  // takes into account when it compiles: those are compiled for each search, as css-select does by itself.
  const query = RELATIVE.test(css) ? css : compiledSelector(css);
  // A copy: css-select drops nested members from the array it is given (domutils' removeSubsets splices it), and
  // that array is a selection's own, which must not lose its elements because a selector was run under them.
  return nodes.length === 1 && !isTag(nodes[0])
    ? searchAll(query, nodes[0], SELECT_OPTIONS)
    : searchAll(query, [...nodes] as Element[], SELECT_OPTIONS);
}

/**
 * Elements a selection found without the page's DOM: by a scan of the text (element_scan.ts), or in the page's light
 * document (light_document.ts). `elements` have the DOM's attributes; `light()` gives the same elements in the light
 * document (for their text and nested selectors), building it if need be; `dom()` gives the DOM's elements, one for
 * each, in the same order, for what only a DOM has (their HTML, the nodes themselves).
 */
interface Scanned {
  elements: readonly ScannedElement[];
  light: () => readonly LightElement[];
  dom: () => readonly Element[];
}

/**
 * The elements a CSS selector matched, in document order. A selection is immutable; iterating it gives
 * one-element selections.
 *
 * Nested `css()` searches each element and its descendants (Scrapy's descendant-or-self), so
 * `page.css("li").css("li.active")` keeps the active items.
 *
 * A selection a page answered from a scan (`page.css("a")` and the like, before a DOM is built) reads attributes
 * from the scan, and finds its elements in the DOM only for what a scan does not have.
 */
export class Selection implements Iterable<Selection> {
  #nodes: readonly (Element | Document)[] | undefined;
  #scanned: Scanned | undefined;
  readonly #mode: SelectionMode;

  /** Use `Page.css()`; this is for the page and for tests. */
  constructor(nodes: readonly (Element | Document)[], mode: SelectionMode = ELEMENT) {
    this.#nodes = nodes;
    this.#mode = mode;
    if (mode.kind === "attr") {
      // Scrapy's ::attr(name) selects attribute values, so elements without the attribute are not part of it.
      const name = mode.name;
      this.#nodes = nodes.filter((node) => isTag(node) && node.attribs[name] !== undefined);
    }
  }

  /**
   * A selection of elements found by a scan (see element_scan.ts); for the page.
   *
   * Hidden from the generated docs: only the page builds these.
   * @ignore
   */
  static fromScan(
    elements: readonly ScannedElement[],
    dom: () => readonly Element[],
    mode: SelectionMode,
    light: () => readonly LightElement[],
  ): Selection {
    const selection = new Selection([], mode);
    if (mode.kind === "attr") {
      // The same filter as the constructor's, on the same attribute objects.
      const name = mode.name;
      const kept: number[] = [];
      elements.forEach((element, i) => {
        if (element.attribs[name] !== undefined) kept.push(i);
      });
      if (kept.length < elements.length) {
        elements = kept.map((i) => elements[i]);
        const allDom = dom;
        const allLight = light;
        dom = () => {
          const found = allDom();
          return kept.map((i) => found[i]);
        };
        light = () => {
          const found = allLight();
          return kept.map((i) => found[i]);
        };
      }
    }
    selection.#nodes = undefined;
    selection.#scanned = { elements, dom, light };
    return selection;
  }

  /**
   * A selection of elements of the page's light document; `dom` finds the same elements in the DOM. For the page.
   *
   * Hidden from the generated docs: only the page builds these.
   * @ignore
   */
  static fromLight(elements: readonly LightElement[], dom: () => readonly Element[], mode: SelectionMode): Selection {
    return Selection.fromScan(elements, dom, mode, () => elements);
  }

  /** The nodes, found in the DOM the first time a scanned selection needs them. */
  get #all(): readonly (Element | Document)[] {
    return this.#nodes ??= this.#scanned!.dom();
  }

  /** Each element's attributes, from the scan or the DOM. */
  #attribs(index: number): Record<string, string> | undefined {
    if (this.#scanned) return this.#scanned.elements[index]?.attribs;
    const node = this.#nodes![index];
    return node !== undefined && isTag(node) ? node.attribs : undefined;
  }

  /**
   * The matched elements, for code that wants the DOM itself (domhandler Elements).
   *
   * Hidden from the generated docs: its type is domhandler's, which domhandler documents.
   * @ignore
   */
  get elements(): Element[] {
    return this.#all.filter(isTag);
  }

  /** What `text()` and `texts()` read: whole text, own text nodes, or an attribute. */
  get mode(): SelectionMode {
    return this.#mode;
  }

  /** How many elements matched. */
  get length(): number {
    return this.#scanned ? this.#scanned.elements.length : this.#nodes!.length;
  }

  /**
   * The elements under (or being) these ones that match `selector`. The selector may end with `::text` or
   * `::attr(name)`; on its own (`"::text"`) it applies to this selection's elements.
   */
  css(selector: string): Selection {
    const { css, mode } = parseSelector(selector);
    const scanned = this.#scanned;
    if (css === "") {
      return scanned
        ? Selection.fromScan(scanned.elements, scanned.dom, mode, scanned.light)
        : new Selection(this.#nodes!, mode);
    }
    if (scanned) {
      const within = scanned.light();
      const found = within.length === 0 ? [] : selectLight(within[0].document, css, within);
      if (found !== undefined) return Selection.fromLight(found, () => domSelect(css, scanned.dom()), mode);
    }
    return new Selection(domSelect(css, this.#all), mode);
  }

  /**
   * The results of an XPath 1.0 expression evaluated with each element as the context node (`./h3/a/@href`,
   * `.//text()`, `count(li)`): elements, text nodes, attributes or values, read with the same methods
   * (docs/spiders.md, XPath). The XPath engine is loaded on the first call in a process.
   */
  xpath(expression: string, options?: XPathOptions): XPathSelection {
    return xpathEngine().xpathSelection(expression, this.#all, options);
  }

  /**
   * The first element's text, trimmed ("" when there is none): its whole text content, only its own text nodes
   * after `::text`, or the attribute's value after `::attr(name)`.
   */
  text(): string {
    if (this.length === 0) return "";
    if (this.#mode.kind === "attr") return (this.#attribs(0)?.[this.#mode.name] || "").trim();
    if (this.#scanned) return this.#readLight(this.#scanned.light()[0]).trim();
    return this.#read(this.#all[0]).trim();
  }

  /** Each element's text, as `text()` reads it, trimmed (one entry per element, empty ones included). */
  texts(): string[] {
    const mode = this.#mode;
    if (mode.kind === "attr") {
      const texts: string[] = [];
      for (let i = 0; i < this.length; i++) texts.push((this.#attribs(i)?.[mode.name] || "").trim());
      return texts;
    }
    if (this.#scanned) return this.#scanned.light().map((element) => this.#readLight(element).trim());
    return this.#all.map((node) => this.#read(node).trim());
  }

  /** A light element's text, as #read reads the DOM's (attribute modes never get here). */
  #readLight(element: LightElement): string {
    return this.#mode.kind === "own" ? element.document.ownText(element) : element.document.textContent(element);
  }

  #read(node: Element | Document): string {
    switch (this.#mode.kind) {
      case "attr":
        return (isTag(node) && node.attribs[this.#mode.name]) || "";
      case "own":
        return ownText(node);
      default:
        return textContent(node);
    }
  }

  /** The first element's attribute (names are lower case in HTML), or undefined. */
  attr(name: string): string | undefined {
    return this.#attribs(0)?.[name.toLowerCase()];
  }

  /** The attribute's value on every element that has it, in order. */
  attrs(name: string): string[] {
    const key = name.toLowerCase();
    const values: string[] = [];
    for (let i = 0; i < this.length; i++) {
      const value = this.#attribs(i)?.[key];
      if (value !== undefined) values.push(value);
    }
    return values;
  }

  /** The first element's outer HTML, or undefined when the selection is empty. */
  html(): string | undefined {
    if (this.length === 0) return undefined;
    return render(this.#all[0], { encodeEntities: "utf8" });
  }

  /** The element at `index` (negative counts from the end) as a selection; empty when out of range. */
  get(index: number): Selection {
    const scanned = this.#scanned;
    if (scanned) {
      // As Array.prototype.at reads its index.
      const whole = Math.trunc(index) || 0;
      const at = whole < 0 ? whole + scanned.elements.length : whole;
      const element = scanned.elements[at];
      if (element === undefined) return new Selection([], this.#mode);
      return Selection.fromScan([element], () => [scanned.dom()[at]], this.#mode, () => [scanned.light()[at]]);
    }
    const node = this.#nodes!.at(index);
    return new Selection(node === undefined ? [] : [node], this.#mode);
  }

  /** The first element as a selection (empty when there is none). */
  first(): Selection {
    return this.get(0);
  }

  /** Each element as a selection of its own, in document order. */
  *[Symbol.iterator](): Iterator<Selection> {
    for (let i = 0; i < this.length; i++) yield this.get(i);
  }
}
