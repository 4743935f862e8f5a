/**
 * What an XPath expression selects: elements as a CSS selection has them, and also what CSS cannot select (text
 * nodes, attributes, comments, and the strings, numbers and booleans of an expression such as `count(//a)`). It is a
 * Selection, read the same way (`text()`, `texts()`, `attr()`, `attrs()`, `html()`, `get()`, `css()`, `xpath()`,
 * iteration), so callbacks mix the two: `page.css("div.product").xpath("./h3/a/@href").texts()`.
 */
import { type AnyNode, type Document, type Element, isTag } from "domhandler";
import { textContent } from "domutils";
import render from "dom-serializer";
import { Selection, type SelectionMode } from "./selection.ts";
import type { XPathItem, XPathOptions } from "./xpath_select.ts";
import { selectXPath } from "./xpath_select.ts";

export { parseXPath } from "./xpath_select.ts";

const ELEMENT: SelectionMode = { kind: "element" };

/** An item's XPath string-value: an element's (or document's) whole text, a node's data, an attribute's value. */
function stringOf(item: XPathItem): string {
  if (item.kind !== "node") return String(item.value);
  const node = item.node;
  if (isTag(node) || node.type === "root") return textContent(node);
  return "data" in node ? node.data : "";
}

/** The results of an XPath expression, in the order XPath gives them (document order for each context node). */
export class XPathSelection extends Selection {
  readonly #items: readonly XPathItem[];

  /** Use `page.xpath()` or `selection.xpath()`; this is for them. */
  constructor(items: readonly XPathItem[]) {
    super([]);
    this.#items = items;
  }

  /**
   * The element results (text, attributes and values left out), for code that wants the DOM itself.
   *
   * Hidden from the generated docs: its type is domhandler's, which domhandler documents.
   * @ignore
   */
  override get elements(): Element[] {
    const elements: Element[] = [];
    for (const item of this.#items) if (item.kind === "node" && isTag(item.node)) elements.push(item.node);
    return elements;
  }

  /**
   * `attr` with the attribute's name when the first result is an attribute (so `page.follow()` of `//a/@href`
   * follows that value), else `element`.
   */
  override get mode(): SelectionMode {
    const first = this.#items[0];
    return first?.kind === "attribute" ? { kind: "attr", name: first.name } : ELEMENT;
  }

  /**
   * The results themselves: DOM nodes, attributes, and values.
   *
   * Hidden from the generated docs: its type names domhandler's nodes, which domhandler documents.
   * @ignore
   */
  get results(): readonly XPathItem[] {
    return this.#items;
  }

  /** How many results. */
  override get length(): number {
    return this.#items.length;
  }

  /** Each result's XPath string-value, untrimmed: whole text of an element, a text node, an attribute's value. */
  strings(): string[] {
    return this.#items.map(stringOf);
  }

  /** The first result's string-value, trimmed ("" when there is none). */
  override text(): string {
    const first = this.#items[0];
    return first === undefined ? "" : stringOf(first).trim();
  }

  /** Each result's string-value, trimmed. */
  override texts(): string[] {
    return this.#items.map((item) => stringOf(item).trim());
  }

  /** The first result's attribute `name`: an element's, or an attribute result's value when it is that attribute. */
  override attr(name: string): string | undefined {
    const first = this.#items[0];
    return first === undefined ? undefined : attributeOf(first, name.toLowerCase());
  }

  /** The attribute on every result that has it (elements, and attribute results of that name). */
  override attrs(name: string): string[] {
    const key = name.toLowerCase();
    const values: string[] = [];
    for (const item of this.#items) {
      const value = attributeOf(item, key);
      if (value !== undefined) values.push(value);
    }
    return values;
  }

  /** The first result as parsel's `get()` gives it: an element's outer HTML, a text, an attribute's value. */
  override html(): string | undefined {
    const first = this.#items[0];
    if (first === undefined) return undefined;
    if (first.kind !== "node") return String(first.value);
    if (first.node.type === "text") return first.node.data;
    return render(first.node, { encodeEntities: "utf8" });
  }

  /** The result at `index` (negative counts from the end) as a selection; empty when out of range. */
  override get(index: number): XPathSelection {
    const item = this.#items.at(index);
    return new XPathSelection(item === undefined ? [] : [item]);
  }

  /** The elements under (or being) the element results that match a CSS selector. */
  override css(selector: string): Selection {
    return new Selection(this.#items.flatMap((item) => nodeForCss(item))).css(selector);
  }

  /** The results of an XPath expression with each result (element, text or attribute) as the context node. */
  override xpath(expression: string, options?: XPathOptions): XPathSelection {
    return new XPathSelection(selectXPath(expression, this.#items, options));
  }
}

function attributeOf(item: XPathItem, name: string): string | undefined {
  if (item.kind === "attribute") return item.name === name ? item.value : undefined;
  if (item.kind === "node" && isTag(item.node)) return item.node.attribs[name];
  return undefined;
}

/** The element or document of a result, which CSS searches under; nothing for other results. */
function nodeForCss(item: XPathItem): (Element | Document)[] {
  if (item.kind !== "node") return [];
  const node = item.node;
  return isTag(node) ? [node] : node.type === "root" ? [node as Document] : [];
}

/** The results of `expression` with each node as the context node, as a selection. */
export function xpathSelection(
  expression: string,
  nodes: readonly AnyNode[],
  options?: XPathOptions,
): XPathSelection {
  return new XPathSelection(selectXPath(expression, nodes.map((node) => ({ kind: "node", node })), options));
}
