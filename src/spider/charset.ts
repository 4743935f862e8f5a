/**
 * Which character encoding a response body is in, found the way browsers and Scrapy do: a byte order mark, then
 * the Content-Type header's charset, then a `<meta charset>` (or http-equiv) or XML declaration near the start,
 * else UTF-8.
 */

/** How many leading bytes are searched for a `<meta>` charset (the HTML spec's prescan looks at 1024). */
const PRESCAN_BYTES = 1024;

const CONTENT_TYPE_CHARSET = /charset\s*=\s*["']?\s*([^\s;"',]+)/i;
const META_CHARSET = /<meta\b[^>]*?charset\s*=\s*["']?\s*([\w:.\-]+)/i;
const XML_ENCODING = /^\s*<\?xml\b[^>]*?encoding\s*=\s*["']([\w:.\-]+)["']/;

/** The canonical name of an encoding label the platform's TextDecoder knows, or undefined. */
function supported(label: string | undefined): string | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return undefined;
  }
}

function byteOrderMark(body: Uint8Array): string | undefined {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return "utf-8";
  if (body[0] === 0xfe && body[1] === 0xff) return "utf-16be";
  if (body[0] === 0xff && body[1] === 0xfe) return "utf-16le";
  return undefined;
}

/** The charset a `<meta>` tag or an XML declaration in the first bytes names. */
function declaredInBody(body: Uint8Array): string | undefined {
  const head = body.subarray(0, PRESCAN_BYTES);
  // Latin-1 keeps every byte as one character, which is all an ASCII-compatible prescan needs.
  let start = "";
  for (let i = 0; i < head.length; i++) start += String.fromCharCode(head[i]);
  const found = supported(XML_ENCODING.exec(start)?.[1] ?? META_CHARSET.exec(start)?.[1]);
  // A document that got this far is ASCII-compatible, so a meta claiming UTF-16 is wrong (the HTML spec's rule).
  return found?.startsWith("utf-16") ? "utf-8" : found;
}

/** The encoding to decode `body` with, as a TextDecoder name (for example "utf-8", "windows-1252"). */
export function detectEncoding(body: Uint8Array, contentType: string | null): string {
  return byteOrderMark(body) ??
    supported(contentType ? CONTENT_TYPE_CHARSET.exec(contentType)?.[1] : undefined) ??
    declaredInBody(body) ??
    "utf-8";
}

/** The body as text in the given encoding; bytes that do not decode become U+FFFD. */
export function decodeBody(body: Uint8Array, encoding: string): string {
  return new TextDecoder(encoding).decode(body);
}
