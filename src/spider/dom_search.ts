/**
 * css-select's search, with a walk whose cost grows with the document's size alone. css-select's own findAll keeps
 * its stacks with `unshift` and `shift`, each a copy of the whole stack, so a page of elements nested 40,000 deep
 * took 40,000 copies of a stack up to 40,000 long: `css("div:first-child")` did not finish in 16 minutes on a 20 MB
 * page of nested divs. The elements searched are css-select's own (its prepareContext, which adds the next siblings
 * for relative selectors and drops nested elements); only the walk is Netweir's, by the nodes' own links, with no
 * stack. Template contents are skipped, as css-select skips them outside XML mode.
 */
import { _compileUnsafe, prepareContext } from "css-select";
import { type AnyNode, type Document, type Element, isTag } from "domhandler";
import type * as DomUtils from "domutils";

/** A compiled css-select query (compile's answer), with css-select's flag for queries that look at next siblings. */
export type DomQuery = ((element: Element) => boolean) & { shouldTestNextSiblings?: boolean };

/** css-select's adapter for domhandler: domutils', with names compared in lower case (see selection.ts). */
export type DomAdapter = typeof DomUtils & { isTag: typeof isTag; getName(element: Element): string };

/** `node` if it is an element, else the first element among its next siblings; null when there is none. */
function firstTag(node: AnyNode | null): Element | null {
  while (node !== null && !isTag(node)) node = node.next;
  return node;
}

/**
 * The elements under `nodes` (a Document: its descendants; elements: themselves and their descendants) that `query`
 * matches, in document order, each once: what css-select's selectAll answers. A string is compiled against `nodes`
 * (relative selectors, `> li`, mean something only there).
 */
export function searchAll(
  query: DomQuery | string,
  nodes: Document | Element[],
  options: { adapter: DomAdapter },
): Element[] {
  const test: DomQuery = typeof query === "string"
    ? _compileUnsafe<AnyNode, Element>(query, options, nodes) as DomQuery
    : query;
  const start = prepareContext<AnyNode, Element>(nodes, options.adapter, test.shouldTestNextSiblings) as AnyNode[];
  const found: Element[] = [];
  for (const root of start) {
    if (!isTag(root)) continue;
    // Depth first by the nodes' own links (first child, next sibling, parent): no stack, and each node is left once.
    let node: Element = root;
    for (;;) {
      if (test(node)) found.push(node);
      let next = node.children.length > 0 && options.adapter.getName(node) !== "template"
        ? firstTag(node.children[0])
        : null;
      let from: Element = node;
      while (next === null && from !== root) {
        next = firstTag(from.next);
        if (next === null) from = from.parent as Element;
      }
      if (next === null) break;
      node = next;
    }
  }
  return found;
}
