/**
 * The page's DOM (domhandler's) as the W3C DOM the `xpath` library walks. domhandler's nodes have most of the W3C
 * names, but not `localName`, `nodeName`, `ownerDocument`, attribute nodes or `compareDocumentPosition`, and they give
 * `<!doctype>` the element node type. Rather than change domhandler's classes for every page of the process, each
 * document that XPath is used on gets one shadow tree, built once in one walk: plain objects with the W3C fields set,
 * each pointing back at its domhandler node. Every node has its place in document order, so the library's sorting
 * (which it does after every step) compares two numbers instead of walking up to a common ancestor.
 *
 * Names are read as lxml's HTML parser gives them, in lower case (the parser keeps SVG's `clipPath`, lxml does not),
 * with no namespace: HTML's elements, SVG's and MathML's alike, as the HTML parsers Scrapy users know present them.
 */
import type { AnyNode, Document, Element } from "domhandler";

/** W3C node types (the numbers the library compares). */
const ELEMENT = 1;
const ATTRIBUTE = 2;
const TEXT = 3;
const PROCESSING_INSTRUCTION = 7;
const COMMENT = 8;
const DOCUMENT = 9;

/** A node of the shadow tree: the W3C DOM fields the `xpath` library reads. */
export class XNode {
  nodeType: number;
  nodeName: string;
  localName: string | null = null;
  readonly prefix = null;
  readonly namespaceURI = null;
  nodeValue: string | null = null;
  parentNode: XNode | null = null;
  firstChild: XNode | null = null;
  previousSibling: XNode | null = null;
  nextSibling: XNode | null = null;
  readonly childNodes: XNode[] = [];
  /** An element's attributes (the library reads `length` and `item(i)`); null on other nodes. */
  attributes: XAttributes | null = null;
  /** Set on attribute nodes: the element that has it. */
  ownerElement: XNode | null = null;
  /** A processing instruction's target. */
  target: string | undefined;
  ownerDocument: XNode | null = null;
  /** The document's first element. */
  documentElement: XNode | null = null;
  /** Its place in document order; an attribute sits between its element and the element's first child. */
  order = 0;
  /** The domhandler node this stands for (an attribute's element, for an attribute). */
  readonly node: AnyNode;

  constructor(node: AnyNode, nodeType: number, nodeName: string) {
    this.node = node;
    this.nodeType = nodeType;
    this.nodeName = nodeName;
  }

  /** The attribute's value (the library reads `value` first). */
  get value(): string | null {
    return this.nodeValue;
  }

  /** The name of an attribute node, as `name()` gives it. */
  get name(): string {
    return this.nodeName;
  }

  /**
   * An attribute in a namespace: none in HTML as lxml reads it (`xml:lang` is an attribute of that name), so XPath's
   * `lang()`, which looks for `xml:lang` in the XML namespace, is false on every node, as it is in parsel.
   */
  getAttributeNS(): null {
    return null;
  }

  /** Only the two bits the library reads: 2 when `other` comes first (or contains this node), else 4. */
  compareDocumentPosition(other: XNode): number {
    return other.order < this.order ? 0x02 : 0x04;
  }
}

/** An element's attribute nodes, as a W3C NamedNodeMap is read. */
export class XAttributes extends Array<XNode> {
  item(index: number): XNode | null {
    return this[index] ?? null;
  }
}

/** A document's shadow tree and the way back from each domhandler node to its shadow. */
export interface XTree {
  readonly root: XNode;
  readonly shadowOf: Map<AnyNode, XNode>;
}

/** The shadow of one domhandler node, or undefined for a node XPath does not see (the doctype). */
function shadow(node: AnyNode): XNode | undefined {
  switch (node.type) {
    case "tag":
    case "script":
    case "style": {
      const name = (node as Element).name.toLowerCase();
      const element = new XNode(node, ELEMENT, name);
      element.localName = name;
      return element;
    }
    case "text": {
      const text = new XNode(node, TEXT, "#text");
      text.nodeValue = node.data;
      return text;
    }
    case "comment": {
      const comment = new XNode(node, COMMENT, "#comment");
      comment.nodeValue = node.data;
      return comment;
    }
    case "cdata": {
      // Only in XML mode; its one child is the text, which XPath sees as a text node.
      const child = node.children[0];
      const text = new XNode(node, TEXT, "#text");
      text.nodeValue = child !== undefined && child.type === "text" ? child.data : "";
      return text;
    }
    case "directive": {
      // `<?target data?>` (htmlparser2 reads it as a directive named "?target"); the doctype and other `<!...>`
      // declarations are not nodes in XPath's data model.
      if (!node.name.startsWith("?")) return undefined;
      const target = node.name.slice(1).toLowerCase();
      const instruction = new XNode(node, PROCESSING_INSTRUCTION, target);
      instruction.target = target;
      instruction.nodeValue = node.data.slice(node.name.length).replace(/^\s+/, "").replace(/\?$/, "");
      return instruction;
    }
    default:
      return undefined;
  }
}

/** Builds the shadow tree of a document in one walk, in document order. */
export function buildXTree(document: Document): XTree {
  const root = new XNode(document, DOCUMENT, "#document");
  const shadowOf = new Map<AnyNode, XNode>([[document, root]]);
  let order = 0;
  const walk = (parent: XNode, children: readonly AnyNode[]): void => {
    let previous: XNode | null = null;
    for (const child of children) {
      const node = shadow(child);
      if (node === undefined) continue;
      node.order = ++order;
      node.parentNode = parent;
      node.ownerDocument = root;
      node.previousSibling = previous;
      if (previous === null) parent.firstChild = node;
      else previous.nextSibling = node;
      parent.childNodes.push(node);
      previous = node;
      shadowOf.set(child, node);
      if (node.nodeType === ELEMENT) {
        const element = child as Element;
        const attributes = new XAttributes();
        for (const name in element.attribs) {
          const attribute = new XNode(element, ATTRIBUTE, name.toLowerCase());
          attribute.localName = attribute.nodeName;
          attribute.nodeValue = element.attribs[name];
          attribute.ownerElement = node;
          attribute.ownerDocument = root;
          attribute.order = ++order;
          attributes.push(attribute);
        }
        node.attributes = attributes;
        walk(node, element.children);
        if (parent === root && root.documentElement === null) root.documentElement = node;
      }
    }
  };
  walk(root, document.children);
  return { root, shadowOf };
}
