/**
 * CSS selectors answered on a light document (light_document.ts) instead of a DOM. The matching is css-select's own:
 * the selector is compiled by css-select, with an adapter that reads light elements, so names, attributes, case
 * rules and combinators mean exactly what they mean on the DOM. What this module adds is the search: the candidates
 * under an element are a range of indices, walked in a plain loop, where css-select's search walks every DOM node,
 * text and comment nodes included.
 *
 * Only selectors made of names, `*`, attribute conditions (`.class` and `#id` among them) and the four combinators
 * are answered here. Pseudo-classes (`:first-child`, `:contains()`, `:empty`) may look at text and comment nodes,
 * which a light document does not keep as nodes, so those selectors, and any that does not parse, go to the DOM,
 * where they get the DOM's answer or its error.
 */
import { compile, type Options } from "css-select";
import { parse, type Selector } from "css-what";
import type { LightDocument, LightElement } from "./light_document.ts";
import { withCachedDescendants } from "./descendant_cache.ts";

/** The parts of a selector whose meaning depends only on elements: names, attributes, combinators. */
const ELEMENT_ONLY = new Set(["tag", "universal", "attribute", "descendant", "child", "adjacent", "sibling"]);

function elementOnly(selector: Selector[][]): boolean {
  for (const compound of selector) {
    // A selector list member that starts with a combinator is relative to the elements searched: the DOM's job.
    const first = compound[0];
    if (first === undefined || first.type === "child" || first.type === "adjacent" || first.type === "sibling") {
      return false;
    }
    for (const part of compound) {
      if (!ELEMENT_ONLY.has(part.type)) return false;
      if ("namespace" in part && part.namespace !== null) return false;
    }
  }
  return true;
}

/**
 * css-select's view of light documents. Every node it is given is an element (the searches below hand it nothing
 * else), the document itself being no element: a top-level element's parent is null, as css-select's walk up a DOM
 * stops at the Document.
 */
const LIGHT_ADAPTER: NonNullable<Options<LightElement, LightElement>["adapter"]> = {
  isTag: (node): node is LightElement => node !== null && typeof node === "object",
  getName: (element) => element.lowerName,
  getAttributeValue: (element, name) => element.attribs[name],
  hasAttrib: (element, name) => Object.hasOwn(element.attribs, name),
  getParent: (element) => element.parent,
  getChildren: (node) => node.document.childrenOf(node),
  getSiblings: (node) => node.document.childrenOf(node.parent),
  prevElementSibling: (node) => {
    const siblings = node.document.childrenOf(node.parent);
    const at = siblings.indexOf(node);
    return at > 0 ? siblings[at - 1] : null;
  },
  getText: (node) => node.document.textContent(node),
  removeSubsets: (nodes) => outermost(nodes),
};

/** The nodes that are not under another of them, duplicates dropped, in the order given (domutils' removeSubsets). */
function outermost(nodes: readonly LightElement[]): LightElement[] {
  const kept: LightElement[] = [];
  for (const node of nodes) {
    const inside = nodes.some((other) => other !== node && other.index < node.index && node.index < other.end);
    if (!inside && !kept.includes(node)) kept.push(node);
  }
  return kept;
}

type Query = (element: LightElement) => boolean;

/** Compiled queries kept, at most (as selection.ts keeps the DOM's). */
const COMPILED_MAX = 512;
/**
 * Compiled queries by selector text, null for a selector not answered here. Compiling per call was a good part of
 * a crawl's garbage on the DOM's side; a query is a pure function of its selector, so crawls share no state by it.
 */
const compiled = new Map<string, Query | null>();

function queryFor(css: string): Query | null {
  let query = compiled.get(css);
  if (query === undefined) {
    query = null;
    let parsed: Selector[][] | undefined;
    try {
      parsed = parse(css);
    } catch {
      // Left to the DOM's css-select, which throws the same error the caller would see there.
    }
    if (parsed !== undefined && elementOnly(parsed)) {
      query = compile(withCachedDescendants(css), { adapter: LIGHT_ADAPTER });
    }
    // Oldest first out: a spider that builds selectors from data cannot grow the map without end.
    if (compiled.size >= COMPILED_MAX) compiled.delete(compiled.keys().next().value!);
    compiled.set(css, query);
  }
  return query;
}

/** Whether `css` is a selector a light document answers (else it is the DOM's to answer). */
export function answersLight(css: string): boolean {
  return queryFor(css) !== null;
}

/**
 * The elements matching `css` in the document (`within` undefined) or under and among `within` (css-select's rule
 * for a list of elements: each one and its descendants, the list's nested members dropped), in document order,
 * skipping `<template>` contents as css-select does; undefined when the selector is not one answered here.
 */
export function selectLight(
  document: LightDocument,
  css: string,
  within?: readonly LightElement[],
): LightElement[] | undefined {
  const query = queryFor(css);
  if (query === null) return undefined;
  const elements = document.elements;
  const found: LightElement[] = [];
  if (within === undefined) {
    for (let i = 0; i < elements.length; i++) {
      const element = elements[i];
      if (element.template === -1 && query(element)) found.push(element);
    }
    return found;
  }
  for (const root of outermost(within)) {
    // Below a root, an element is searched unless a template at or below the root holds it.
    for (let i = root.index; i < root.end; i++) {
      const element = elements[i];
      if (element.template < root.index && query(element)) found.push(element);
    }
  }
  return found;
}
