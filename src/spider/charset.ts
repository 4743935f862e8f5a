/**
 * Which character encoding a response body is in, found as the WHATWG HTML standard's encoding sniffing algorithm
 * says browsers find it: a byte order mark; the Content-Type header's charset; the `<meta>` prescan of the first
 * 1,024 bytes (or an XML declaration at the very start, for sitemaps and feeds); then a `<meta>` anywhere later, as
 * the parser's "change the encoding" step finds it; else UTF-8 when the bytes are valid UTF-8 and windows-1252 when
 * they are not, the fallback browsers use for undeclared legacy pages. Labels are the WHATWG ones (the platform's
 * TextDecoder knows them), so `latin1` and `iso-8859-1` mean windows-1252 here as in every browser.
 */
import { runtime } from "../runtime/mod.ts";

/** How many leading bytes the prescan looks at, as the standard says. */
const PRESCAN_BYTES = 1024;

const CONTENT_TYPE_CHARSET = /charset\s*=\s*["']?\s*([^\s;"',]+)/i;
const XML_ENCODING = /^\s*<\?xml\b[^>]*?encoding\s*=\s*["']([\w:.\-]+)["']/;

/** The standard's "get an encoding": the canonical name of a label, or undefined for none the platform decodes. */
function getEncoding(label: string | undefined): string | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    // x-user-defined (unknown to Node's decoder) is what the prescan turns into windows-1252 anyway.
    return label.trim().toLowerCase() === "x-user-defined" ? "x-user-defined" : undefined;
  }
}

function byteOrderMark(body: Uint8Array): string | undefined {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return "utf-8";
  if (body[0] === 0xfe && body[1] === 0xff) return "utf-16be";
  if (body[0] === 0xff && body[1] === 0xfe) return "utf-16le";
  return undefined;
}

const isSpace = (byte: number) => byte === 0x09 || byte === 0x0a || byte === 0x0c || byte === 0x0d || byte === 0x20;
const isLetter = (byte: number) => (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a);
const lower = (byte: number) => (byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte);

/** Thrown when the prescan runs off the end of its bytes: the standard's "abort the prescan". */
const END = Symbol("end");

/**
 * Elements whose content the tokenizer reads as text, not tags (raw text, RCDATA, script data): a `<meta>` inside a
 * `<script>`, `<textarea>` or `<xmp>` is text, and declares nothing past the prescan. plaintext's runs to the end.
 * noscript is not among them: Chromium's late scan reads a `<meta>` in it (checked in Chromium 156).
 */
const TEXT_CONTENT = new Set(["script", "style", "title", "textarea", "xmp", "iframe", "noembed", "noframes"]);
/** The tags a page's head may hold as Chromium's late scan counts them (html_meta_charset_parser.cc). */
const HEAD_TAGS = new Set(["html", "head", "script", "noscript", "style", "link", "meta", "object", "title", "base"]);

/**
 * The standard's byte-stream prescan over `bytes`, or undefined when it finds no usable `<meta>`.
 *
 * `late` makes it the scan past the first 1,024 bytes, which the standard leaves to the parser ("change the
 * encoding") and browsers do as Chromium does: tags are read as the tokenizer reads them (the content of a `<script>`,
 * `<textarea>`, `<xmp>` is no tag), and the scan ends at the first tag a head does not hold (`<body>`, `<p>`, `<svg>`)
 * or at `</head>`, once past the 1,024 bytes. Firefox takes no `<meta>` past them at all; Chromium takes one in the
 * head, where pages with long scripts and styles put it.
 */
function prescan(bytes: Uint8Array, late = false): string | undefined {
  let position = 0;
  const at = (i: number): number => {
    if (i >= bytes.length) throw END;
    return bytes[i];
  };
  const startsWith = (i: number, text: string): boolean => {
    for (let k = 0; k < text.length; k++) {
      if (i + k >= bytes.length || lower(bytes[i + k]) !== text.charCodeAt(k)) return false;
    }
    return true;
  };
  /** The standard's "get an attribute": [name, value] from `position` on, or undefined at the tag's end. */
  const getAttribute = (): [string, string] | undefined => {
    while (isSpace(at(position)) || at(position) === 0x2f) position++;
    if (at(position) === 0x3e) return undefined;
    let name = "";
    let value = "";
    for (;;) {
      const byte = at(position);
      if (byte === 0x3d && name !== "") {
        position++;
        break;
      }
      if (isSpace(byte)) {
        while (isSpace(at(position))) position++;
        if (at(position) !== 0x3d) return [name, ""];
        position++;
        break;
      }
      if (byte === 0x2f || byte === 0x3e) return [name, ""];
      name += String.fromCharCode(lower(byte));
      position++;
    }
    while (isSpace(at(position))) position++;
    const first = at(position);
    if (first === 0x22 || first === 0x27) {
      position++;
      for (;;) {
        const byte = at(position++);
        if (byte === first) return [name, value];
        value += String.fromCharCode(lower(byte));
      }
    }
    if (first === 0x3e) return [name, ""];
    for (;;) {
      const byte = at(position);
      if (isSpace(byte) || byte === 0x3e) return [name, value];
      value += String.fromCharCode(lower(byte));
      position++;
    }
  };
  /** The attributes of a `<meta>`, as the standard weighs them; the encoding it declares, or undefined. */
  const meta = (): string | undefined => {
    const seen = new Set<string>();
    let gotPragma = false;
    let needPragma: boolean | undefined;
    let charset: string | undefined;
    for (let attribute = getAttribute(); attribute; attribute = getAttribute()) {
      const [name, value] = attribute;
      if (seen.has(name)) continue;
      seen.add(name);
      if (name === "http-equiv" && value === "content-type") gotPragma = true;
      else if (name === "content" && charset === undefined) {
        const found = getEncoding(charsetFromMetaContent(value));
        if (found !== undefined) {
          charset = found;
          needPragma = true;
        }
      } else if (name === "charset") {
        charset = getEncoding(value);
        needPragma = false;
      }
    }
    if (needPragma === undefined || (needPragma && !gotPragma) || charset === undefined) return undefined;
    if (charset === "utf-16be" || charset === "utf-16le") return "utf-8";
    if (charset === "x-user-defined") return "windows-1252";
    return charset;
  };
  /** Whether a tag has left the head (the late scan goes on to the 1,024th byte, then stops). */
  let leftHead = false;
  try {
    while (position < bytes.length) {
      // Every step below starts at a "<"; any other byte is only stepped over. Going straight to the next "<" saves
      // a call or four per byte of text, which on a page with no declared charset (scanned twice, the late scan to
      // the end of its head) was one of a broad crawl's larger costs per page.
      if (bytes[position] !== 0x3c) {
        position = bytes.indexOf(0x3c, position);
        if (position < 0) return undefined;
      }
      if (leftHead && position >= PRESCAN_BYTES) return undefined;
      if (startsWith(position, "<!--")) {
        // To the end of the first "-->" after "<!" (so "<!-->" is a whole comment, as the standard has it).
        position += 2;
        while (!startsWith(position, "-->")) at(position++);
        position += 2; // on the ">"; the step below moves past it
      } else if (startsWith(position, "<meta") && (isSpace(at(position + 5)) || at(position + 5) === 0x2f)) {
        position += 6;
        const found = meta();
        if (found !== undefined) return found;
      } else if (
        at(position) === 0x3c &&
        (isLetter(at(position + 1)) || (at(position + 1) === 0x2f && isLetter(at(position + 2))))
      ) {
        const end = at(position + 1) === 0x2f;
        const nameStart = position + (end ? 2 : 1);
        while (!isSpace(at(position)) && at(position) !== 0x3e) position++;
        while (getAttribute() !== undefined);
        if (late) {
          const name = tagName(bytes, nameStart);
          if (!HEAD_TAGS.has(name) || (end && name === "head")) leftHead = true;
          if (!end && name === "plaintext") return undefined;
          if (!end && TEXT_CONTENT.has(name)) position = endOfText(bytes, position + 1, name) - 1;
        }
      } else if (startsWith(position, "<!") || startsWith(position, "</") || startsWith(position, "<?")) {
        while (at(position) !== 0x3e) position++;
      }
      position++;
    }
  } catch (error) {
    if (error !== END) throw error;
  }
  return undefined;
}

/** The lower-case name of a tag whose name starts at `start` (up to a space, `/` or `>`). */
function tagName(bytes: Uint8Array, start: number): string {
  let name = "";
  for (let i = start; i < bytes.length; i++) {
    const byte = bytes[i];
    if (isSpace(byte) || byte === 0x2f || byte === 0x3e) break;
    name += String.fromCharCode(lower(byte));
  }
  return name;
}

/** Where the end tag of a text element (`</script`, `</textarea`...) starts, from `from` on; throws END when none. */
function endOfText(bytes: Uint8Array, from: number, name: string): number {
  for (let i = bytes.indexOf(0x3c, from); i >= 0; i = bytes.indexOf(0x3c, i + 1)) {
    if (bytes[i + 1] !== 0x2f) continue;
    let k = 0;
    while (k < name.length && lower(bytes[i + 2 + k]) === name.charCodeAt(k)) k++;
    const after = bytes[i + 2 + k];
    if (k === name.length && (isSpace(after) || after === 0x2f || after === 0x3e)) return i;
  }
  throw END;
}

/** The standard's "extract a character encoding from a meta element": the label in `content`, or undefined. */
export function charsetFromMetaContent(content: string): string | undefined {
  let from = 0;
  for (;;) {
    const index = content.toLowerCase().indexOf("charset", from);
    if (index < 0) return undefined;
    let i = index + "charset".length;
    while (/[\t\n\f\r ]/.test(content[i] ?? "")) i++;
    if (content[i] !== "=") {
      from = i;
      continue;
    }
    i++;
    while (/[\t\n\f\r ]/.test(content[i] ?? "")) i++;
    const quote = content[i];
    if (quote === '"' || quote === "'") {
      const end = content.indexOf(quote, i + 1);
      return end < 0 ? undefined : content.slice(i + 1, end);
    }
    const rest = content.slice(i).match(/^[^\t\n\f\r ;]+/);
    return rest ? rest[0] : undefined;
  }
}

/** The bytes JavaScript's \s matches when read as Latin-1: tab to carriage return, space, no-break space. */
const IS_SPACE_BYTE = new Uint8Array(256);
for (const byte of [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0]) IS_SPACE_BYTE[byte] = 1;

/** The charset an XML declaration at the very start names (`<?xml version="1.0" encoding="ISO-8859-1"?>`). */
function xmlDeclaration(body: Uint8Array): string | undefined {
  if (body.length < 5) return undefined;
  // Nearly every page starts otherwise: past the bytes \s matches (as Latin-1), a declaration's "<" or nothing.
  let first = 0;
  while (first < body.length && IS_SPACE_BYTE[body[first]] === 1) first++;
  // "<?": an HTML page's "<!DOCTYPE" or "<html" is told apart here, before any string is built for it.
  if (body[first] !== 0x3c || body[first + 1] !== 0x3f) return undefined;
  const start = String.fromCharCode(...body.subarray(0, 200));
  const found = getEncoding(XML_ENCODING.exec(start)?.[1]);
  return found === "utf-16be" || found === "utf-16le" ? "utf-8" : found;
}

/** The body's text when it is valid UTF-8, else undefined. */
function asUtf8(body: Uint8Array): string | undefined {
  try {
    return runtime.decodeUtf8(body, true);
  } catch {
    return undefined;
  }
}

/** The encoding to decode `body` with, as a TextDecoder name (for example "utf-8", "windows-1252", "shift_jis"). */
export function detectEncoding(body: Uint8Array, contentType: string | null): string {
  return detectEncodingAndText(body, contentType).encoding;
}

/**
 * detectEncoding's answer, and the text when finding it took decoding the body (an undeclared page checked for
 * UTF-8): that text is what decodeBody would give, so the page need not decode its body twice.
 */
export function detectEncodingAndText(
  body: Uint8Array,
  contentType: string | null,
): { encoding: string; text: string | undefined } {
  const declared = byteOrderMark(body) ??
    getEncoding(contentType ? CONTENT_TYPE_CHARSET.exec(contentType)?.[1] : undefined) ??
    xmlDeclaration(body) ??
    prescan(body.subarray(0, PRESCAN_BYTES)) ??
    // A <meta> past the first 1,024 bytes, in the head: Chromium finds it (see prescan's `late`).
    (body.length > PRESCAN_BYTES ? prescan(body, true) : undefined);
  if (declared !== undefined && declared !== "x-user-defined") return { encoding: declared, text: undefined };
  if (declared === "x-user-defined") return { encoding: "windows-1252", text: undefined };
  const text = asUtf8(body);
  // Undeclared ASCII is windows-1252, the standard's fallback (and Scrapy's: it reads "ascii" as cp1252), which
  // matters for the queries of its links: href="/s?q=caf&eacute;" sends q=caf%E9. Valid UTF-8 with more than ASCII is
  // UTF-8, as browsers' detectors find it. UTF-8 decodes ASCII to as many code units as bytes, anything else to fewer.
  if (text !== undefined && text.length !== body.length) return { encoding: "utf-8", text };
  return { encoding: "windows-1252", text };
}

/** The body as text in the given encoding; bytes that do not decode become U+FFFD. */
export function decodeBody(body: Uint8Array, encoding: string): string {
  // UTF-8, most of the web, through the runtime: Node's TextDecoder is slow at it (src/runtime/node_utf8.ts).
  return encoding === "utf-8" ? runtime.decodeUtf8(body) : new TextDecoder(encoding).decode(body);
}
