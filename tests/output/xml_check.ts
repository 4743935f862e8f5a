/**
 * Reading XML feeds back in the tests: a strict well-formedness check (htmlparser2 forgives too much to be one) that
 * returns the element tree, and the same tree as htmlparser2 reads it in xmlMode, for a second opinion.
 */
import { parseDocument } from "htmlparser2";
import type { ChildNode } from "domhandler";

/** An element: its name and its children, text already decoded. */
export interface XmlNode {
  name: string;
  children: (XmlNode | string)[];
}

const DECLARATION = '<?xml version="1.0" encoding="utf-8"?>\n';
const NAME = /^[A-Za-z_\u00C0-\uFFFD][A-Za-z0-9_.\-\u00B7\u00C0-\uFFFD]*$/u;
const BAD_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const ENTITY = /^&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);/;
const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decodeText(text: string, at: number): string {
  if (BAD_CHAR.test(text)) throw new SyntaxError(`character not allowed in XML near ${at}`);
  let out = "";
  for (let i = 0; i < text.length; i++) {
    if (text[i] === ">" && text.slice(i - 2, i) === "]]") throw new SyntaxError(`"]]>" in text near ${at}`);
    if (text[i] !== "&") {
      out += text[i];
      continue;
    }
    const match = ENTITY.exec(text.slice(i));
    if (!match) throw new SyntaxError(`bare "&" near ${at + i}`);
    const name = match[1];
    out += name.startsWith("#x")
      ? String.fromCodePoint(parseInt(name.slice(2), 16))
      : name.startsWith("#")
      ? String.fromCodePoint(parseInt(name.slice(1), 10))
      : NAMED[name];
    i += match[0].length - 1;
  }
  // A parser normalises line ends: a literal CR (alone or before LF) reads as LF.
  return out;
}

/** Checks that `text` is a well-formed feed document and returns its root element. Throws SyntaxError otherwise. */
export function parseXmlStrict(text: string): XmlNode {
  if (!text.startsWith(DECLARATION)) throw new SyntaxError("missing XML declaration");
  const stack: XmlNode[] = [];
  let root: XmlNode | undefined;
  let i = DECLARATION.length;
  while (i < text.length) {
    const open = text.indexOf("<", i);
    const chunk = text.slice(i, open === -1 ? text.length : open);
    if (chunk !== "") {
      if (stack.length === 0) {
        if (chunk.trim() !== "") throw new SyntaxError(`text outside the root element near ${i}`);
      } else {
        const raw = chunk.replace(/\r\n?/g, "\n");
        stack.at(-1)!.children.push(decodeText(raw, i));
      }
    }
    if (open === -1) break;
    const close = text.indexOf(">", open);
    if (close === -1) throw new SyntaxError(`unterminated tag at ${open}`);
    const tag = text.slice(open + 1, close);
    if (tag.startsWith("/")) {
      const name = tag.slice(1);
      const top = stack.pop();
      if (!top || top.name !== name) throw new SyntaxError(`</${name}> does not close <${top?.name}> at ${open}`);
    } else {
      const selfClosing = tag.endsWith("/");
      const name = selfClosing ? tag.slice(0, -1) : tag;
      if (!NAME.test(name)) throw new SyntaxError(`bad element name ${JSON.stringify(name)} at ${open}`);
      const node: XmlNode = { name, children: [] };
      if (stack.length === 0) {
        if (root) throw new SyntaxError(`second root element at ${open}`);
        root = node;
      } else stack.at(-1)!.children.push(node);
      if (!selfClosing) stack.push(node);
    }
    i = close + 1;
  }
  if (stack.length > 0) throw new SyntaxError(`<${stack.at(-1)!.name}> is never closed`);
  if (!root) throw new SyntaxError("no root element");
  return root;
}

function fromDom(node: ChildNode): XmlNode | string | undefined {
  if (node.type === "text") return node.data;
  if (node.type === "tag") {
    const children = node.children.map(fromDom).filter((child) => child !== undefined);
    return { name: node.name, children };
  }
  return undefined;
}

/** The root element as htmlparser2 reads it in xmlMode, whitespace-only text between elements dropped. */
export function parseXmlWithHtmlparser2(text: string): XmlNode {
  const document = parseDocument(text, { xmlMode: true });
  const root = document.children.map(fromDom).find((child) => typeof child === "object");
  if (!root) throw new SyntaxError("no root element");
  return root as XmlNode;
}
