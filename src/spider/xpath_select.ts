/**
 * XPath 1.0 over a page's DOM, with the `xpath` library (npm, goto100/xpath) walking the DOM's shadow tree
 * (xpath_dom.ts). This module is the only one that uses the library (xpath_library.ts loads it), and nothing imports
 * it statically: it is loaded on the first XPath a process evaluates (xpath_load.ts), so a crawl that never uses
 * XPath never loads it.
 * docs/design/xpath.md says why this library.
 *
 * Beyond XPath 1.0's own functions, the extensions parsel offers Scrapy users: `has-class("a", "b")`, EXSLT's
 * `re:test()` and `re:replace()`, and `set:difference()`, `set:intersection()`, `set:has-same-node()`.
 */
import type { AnyNode, Document, Element } from "domhandler";
import { buildXTree, type XNode, type XTree } from "./xpath_dom.ts";
import { optimiseXPath, type XPathSyntax } from "./xpath_optimise.ts";
import { xpathLibrary } from "./xpath_library.ts";

/**
 * What an XPath expression found: a node of the DOM, an attribute of an element, or a string, number or boolean
 * (kept as XPath's `string()` gives it: `3`, `0.5`, `NaN`, `true`).
 */
export type XPathItem =
  | { kind: "node"; node: AnyNode }
  | { kind: "attribute"; element: Element; name: string; value: string }
  | { kind: "value"; value: string };

/** Options of `xpath()`. */
export interface XPathOptions {
  /** Values for the expression's `$name` variables (parsel's keyword arguments to `xpath()`). */
  variables?: Record<string, string | number | boolean>;
}

/** The parts of the library used here (its typings declare neither `parse` nor its result classes). */
interface XPathValue {
  stringValue(): string;
}
interface ParsedXPath {
  /** The syntax tree, under the library's XPath object. */
  expression: { expression: unknown };
  evaluate(options: {
    node: XNode;
    variables?: Record<string, string | number | boolean>;
    functions: (name: string, namespace: string | null) => ((...args: unknown[]) => unknown) | undefined;
    namespaces: Record<string, string>;
  }): XPathValue;
}
interface XPathLibrary extends XPathSyntax {
  parse(expression: string): ParsedXPath;
  XNodeSet: new () => XPathValue & { toArray(): XNode[] };
  XString: new () => XPathValue;
}
const library = xpathLibrary() as XPathLibrary;

const EXSLT_REGEXP = "http://exslt.org/regular-expressions";
const EXSLT_SETS = "http://exslt.org/sets";
/** parsel's default prefixes: `re:` and `set:` for EXSLT's regular expressions and sets. */
const NAMESPACES = { re: EXSLT_REGEXP, set: EXSLT_SETS };
/** HTML's ASCII whitespace, which separates class names. */
const CLASS_SEPARATOR = /[\t\n\f\r ]+/;

interface FunctionContext {
  contextNode: XNode;
}
type XPathFunction = (context: FunctionContext, ...args: XPathValue[]) => unknown;

/** A node-set argument's nodes; a SyntaxError naming the function when the argument is no node-set. */
function nodesOf(value: XPathValue, name: string): XNode[] {
  if (!(value instanceof library.XNodeSet)) throw new SyntaxError(`${name} takes node-sets`);
  return value.toArray();
}

/** parsel's `has-class(name, ...)`: whether the context element has every class named. */
const hasClass: XPathFunction = (context, ...names) => {
  if (names.length === 0) throw new SyntaxError("has-class must have at least 1 argument");
  if (!names.every((name) => name instanceof library.XString)) {
    throw new SyntaxError("has-class arguments must be strings");
  }
  const attribute = context.contextNode.attributes?.find((each) => each.nodeName === "class");
  if (attribute === undefined) return false;
  const classes = new Set(attribute.nodeValue!.split(CLASS_SEPARATOR));
  return names.every((name) => classes.has(name.stringValue()));
};

/** EXSLT's regular expressions' flags: `i` ignores case, `g` replaces every match. */
function regexpOf(pattern: XPathValue, flags: XPathValue | undefined, global: boolean): RegExp {
  const flagText = flags?.stringValue() ?? "";
  const jsFlags = (flagText.includes("i") ? "i" : "") + (global && flagText.includes("g") ? "g" : "");
  return new RegExp(pattern.stringValue(), jsFlags);
}

/** EXSLT's functions parsel offers (`re:match`, which makes new text nodes, is not among them). */
const EXSLT: Record<string, Record<string, XPathFunction>> = {
  [EXSLT_REGEXP]: {
    test: (_context, input, pattern, flags) => regexpOf(pattern, flags, false).test(input.stringValue()),
    // The replacement's groups are written \1 (Python's, as lxml's EXSLT takes them); JavaScript's are $1.
    replace: (_context, input, pattern, flags, replacement) =>
      input.stringValue().replace(
        regexpOf(pattern, flags, true),
        replacement.stringValue().replace(/\$/g, "$$$$").replace(/\\(\d)/g, "$$$1"),
      ),
  },
  [EXSLT_SETS]: {
    difference: (_context, a, b) => {
      const other = new Set(nodesOf(b, "set:difference"));
      return nodesOf(a, "set:difference").filter((node) => !other.has(node));
    },
    intersection: (_context, a, b) => {
      const other = new Set(nodesOf(b, "set:intersection"));
      return nodesOf(a, "set:intersection").filter((node) => other.has(node));
    },
    "has-same-node": (_context, a, b) => {
      const other = new Set(nodesOf(b, "set:has-same-node"));
      return nodesOf(a, "set:has-same-node").some((node) => other.has(node));
    },
  },
};

function functionNamed(name: string, namespace: string | null): XPathFunction | undefined {
  if (!namespace) return name === "has-class" ? hasClass : undefined;
  return EXSLT[namespace]?.[name];
}

/** Parsed expressions kept, at most, oldest out first (a spider uses a handful, called on every page). */
const PARSED_MAX = 512;
/** Parsed expressions by their text: pure functions of the text, so sharing them shares no crawl's state. */
const parsedExpressions = new Map<string, ParsedXPath>();

/** A name and the spaces between it and a `(`, outside string literals; group 1 the literal, 2 the name. */
const NAME_THEN_PARENTHESIS = /("[^"]*"|'[^']*')|([A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?)\s+(?=\()/g;
/** Names that are operators before a `(` (`a and (b)`): their space stays. */
const OPERATOR_NAMES = new Set(["and", "or", "div", "mod"]);

/**
 * The expression with the spaces between a function's (or node test's) name and its `(` taken out: XPath allows
 * them (`not (@disabled)`, as cssselect writes `:enabled`), the library's lexer does not.
 */
function joinFunctionNames(expression: string): string {
  return expression.replace(
    NAME_THEN_PARENTHESIS,
    (whole, literal, name) => literal !== undefined || OPERATOR_NAMES.has(name) ? whole : name,
  );
}

/** The expression parsed (once); a SyntaxError naming it when it is no XPath 1.0 expression. */
export function parseXPath(expression: string): ParsedXPath {
  let parsed = parsedExpressions.get(expression);
  if (parsed === undefined) {
    if (typeof expression !== "string") throw new TypeError("xpath: the expression must be a string");
    try {
      parsed = library.parse(joinFunctionNames(expression));
      optimiseXPath(parsed.expression.expression, library);
    } catch (error) {
      throw new SyntaxError(`xpath: invalid expression ${JSON.stringify(expression)}: ${(error as Error).message}`);
    }
    if (parsedExpressions.size >= PARSED_MAX) parsedExpressions.delete(parsedExpressions.keys().next().value!);
    parsedExpressions.set(expression, parsed);
  }
  return parsed;
}

/**
 * Each document's shadow tree, built on its first XPath. Keyed weakly by the document: a page's DOM (and so its
 * tree) goes when the page drops it, and two crawls' documents are never the same key.
 */
const trees = new WeakMap<Document, XTree>();

function treeOf(node: AnyNode): XTree {
  let top: AnyNode = node;
  while (top.parent !== null) top = top.parent;
  if (top.type !== "root") throw new TypeError("xpath: the node is not part of a document");
  let tree = trees.get(top as Document);
  if (tree === undefined) trees.set(top as Document, tree = buildXTree(top as Document));
  return tree;
}

/** The shadow of an item to evaluate from (a value has none: an expression on it finds nothing). */
function contextOf(item: XPathItem): XNode | undefined {
  if (item.kind === "value") return undefined;
  if (item.kind === "attribute") {
    return treeOf(item.element).shadowOf.get(item.element)?.attributes?.find((each) => each.nodeName === item.name);
  }
  return treeOf(item.node).shadowOf.get(item.node);
}

function itemOf(node: XNode): XPathItem {
  if (node.ownerElement !== null) {
    return { kind: "attribute", element: node.node as Element, name: node.nodeName, value: node.nodeValue! };
  }
  return { kind: "node", node: node.node };
}

/**
 * The results of an XPath 1.0 expression evaluated with each item as the context node, in turn: nodes in document
 * order for each context (as parsel gives them), a string, number or boolean as one value per context.
 */
export function selectXPath(expression: string, items: readonly XPathItem[], options: XPathOptions = {}): XPathItem[] {
  const parsed = parseXPath(expression);
  const found: XPathItem[] = [];
  for (const item of items) {
    const node = contextOf(item);
    if (node === undefined) continue;
    let result: XPathValue;
    try {
      result = parsed.evaluate({
        node,
        variables: options.variables,
        functions: functionNamed as never,
        namespaces: NAMESPACES,
      });
    } catch (error) {
      if (error instanceof SyntaxError) throw error;
      throw new SyntaxError(`xpath: cannot evaluate ${JSON.stringify(expression)}: ${(error as Error).message}`);
    }
    if (result instanceof library.XNodeSet) {
      for (const each of result.toArray()) found.push(itemOf(each));
    } else found.push({ kind: "value", value: result.stringValue() });
  }
  return found;
}
