/**
 * XML feeds (.xml), as Scrapy's XmlItemExporter writes them:
 *
 * ```xml
 * <?xml version="1.0" encoding="utf-8"?>
 * <items>
 * <item><title>A</title><tags><value>x</value><value>y</value></tags></item>
 * </items>
 * ```
 *
 * Arrays become `<value>` children and objects nested elements. Unlike Scrapy, the output is always well-formed:
 * keys that are not XML names are made into names, and characters XML 1.0 cannot carry are removed.
 */
import type { Item } from "../spider/types.ts";
import type { Feed, FeedFormat, FeedOptions } from "./feed.ts";
import { type FeedEncoder, FileFeed, openFeedFile } from "./feed_file.ts";

// XML 1.0 NameStartChar and NameChar without ":", which would make a name a namespace prefix.
const NAME_START = "A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D" +
  "\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}";
const NAME_CHAR = NAME_START + "\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040";
const NOT_NAME_CHAR = new RegExp(`[^${NAME_CHAR}]`, "gu");
const NAME_START_CHAR = new RegExp(`^[${NAME_START}]`, "u");
/** Everything outside XML 1.0's Char production: most C0 controls, lone surrogates, U+FFFE and U+FFFF. */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Makes a key into an XML element name: other characters become `_`, and `_` goes first if it cannot start one. */
export function xmlName(key: string): string {
  const name = key.replace(NOT_NAME_CHAR, "_");
  return NAME_START_CHAR.test(name) ? name : "_" + name;
}

/** Escapes text content: drops characters XML cannot hold, escapes `& < >`, and keeps CR as a reference. */
export function xmlText(text: string): string {
  return text
    .replace(NOT_XML_CHAR, "")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    // A parser turns a literal CR into LF; the reference survives.
    .replaceAll("\r", "&#13;");
}

function element(key: string, value: unknown): string {
  const name = xmlName(key);
  return `<${name}>${content(value)}</${name}>`;
}

function content(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return value.map((entry) => element("value", entry)).join("");
  if (typeof value === "object") return fields(value as Record<string, unknown>);
  return xmlText(String(value));
}

function fields(object: Record<string, unknown>): string {
  let text = "";
  // Keys whose value is undefined are left out, as JSON leaves them out.
  for (const [key, value] of Object.entries(object)) if (value !== undefined) text += element(key, value);
  return text;
}

/** Encodes batches as `<item>` elements of one `<items>` document. */
export function xmlEncoder(): FeedEncoder {
  return {
    start: () => '<?xml version="1.0" encoding="utf-8"?>\n<items>\n',
    encode: (items: Item[]) => items.map((item) => `<item>${fields(item)}</item>\n`).join(""),
    finish: () => "</items>\n",
  };
}

const options = { appendable: false, label: "XML" } as const;

/** Opens an XML feed. `-o` onto a non-empty file is refused: the document is closed by its last tag. */
export async function openXmlFeed(path: string, feedOptions: FeedOptions): Promise<Feed> {
  const file = await openFeedFile(path, { ...options, overwrite: feedOptions.overwrite });
  return FileFeed.start(path, file.handle, xmlEncoder());
}

/** The XML format. */
export const xmlFormat: FeedFormat = { name: "xml", extensions: [".xml"], ...options, open: openXmlFeed };
