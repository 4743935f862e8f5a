/**
 * A link's query string in the page's own encoding, as the URL standard has browsers send it: `?q=日本` on a
 * Shift_JIS page is `?q=%93%FA%96%7B`, not the UTF-8 `%E6%97%A5%E6%9C%AC` that `new URL()` always writes. Servers
 * of legacy pages (search forms of Japanese, Chinese and Korean sites above all) read the query in their encoding,
 * and Scrapy sends it that way too.
 *
 * The platform has no encoder for legacy encodings (TextEncoder is UTF-8 only), so each one's table is built the
 * first time it is needed by decoding its byte sequences with TextDecoder, keeping the first sequence for each
 * character (with the few exclusions the standard's encoders make). A character the encoding lacks is written as
 * the HTML reference `&#NNNN;`, percent-encoded, as browsers do. Every byte of a non-ASCII character is
 * percent-encoded, ASCII-range trail bytes included, which is what Scrapy sends and servers decode alike.
 */

/** Encodings whose output encoding is UTF-8 (the standard's "get an output encoding"), so nothing changes. */
const UTF8_OUTPUT = new Set(["utf-8", "utf-16be", "utf-16le", "replacement"]);

/** Encodings with more than one byte a character, and the lead bytes their encoders never write. */
const MULTI_BYTE: Record<string, (lead: number) => boolean> = {
  // Shift_JIS: pointers 8272-8835 (leads 0xED, 0xEE) repeat characters of 0xFA-0xFC, which the encoder uses.
  shift_jis: (lead) => lead !== 0xed && lead !== 0xee,
  "euc-jp": (lead) => lead === 0x8e || lead >= 0xa1,
  // Big5: the HKSCS pointers below lead 0xA1 are never encoded.
  big5: (lead) => lead >= 0xa1,
  "euc-kr": () => true,
  gbk: () => true,
  gb18030: () => true,
};

// Tables by encoding: a pure function of the platform's decoders, built at most once each per process.
const tables = new Map<string, Map<number, number[]>>();

function buildTable(encoding: string): Map<number, number[]> {
  const decoder = new TextDecoder(encoding);
  const table = new Map<number, number[]>();
  const keep = (bytes: number[]) => {
    const text = decoder.decode(new Uint8Array(bytes));
    const point = text.codePointAt(0);
    if (point === undefined || point === 0xfffd || point < 0x80) return;
    if (text.length !== (point > 0xffff ? 2 : 1)) return;
    if (!table.has(point)) table.set(point, bytes);
  };
  for (let byte = 0x80; byte <= 0xff; byte++) keep([byte]);
  const leadAllowed = MULTI_BYTE[encoding];
  if (leadAllowed) {
    for (let lead = 0x81; lead <= 0xfe; lead++) {
      if (!leadAllowed(lead)) continue;
      for (let trail = 0x40; trail <= 0xfe; trail++) if (trail !== 0x7f) keep([lead, trail]);
    }
  }
  return table;
}

function tableFor(encoding: string): Map<number, number[]> {
  let table = tables.get(encoding);
  if (!table) tables.set(encoding, table = buildTable(encoding));
  return table;
}

const hex = (byte: number) => "%" + byte.toString(16).toUpperCase().padStart(2, "0");

/** Whether links of a page in `encoding` need their queries re-encoded at all. */
export function queryNeedsEncoding(encoding: string): boolean {
  return !UTF8_OUTPUT.has(encoding);
}

/**
 * `href` with each non-ASCII character of its query (between `?` and `#`) replaced by its bytes in `encoding`,
 * percent-encoded; the rest as written, for the URL parser. Unchanged for UTF-8 pages and queries of ASCII alone.
 */
export function encodeQuery(href: string, encoding: string): string {
  if (!queryNeedsEncoding(encoding)) return href;
  const start = href.indexOf("?");
  if (start < 0) return href;
  const hash = href.indexOf("#", start);
  const end = hash < 0 ? href.length : hash;
  const query = href.slice(start + 1, end);
  if (!/[\u0080-\uffff]/.test(query)) return href; // ASCII alone: the URL parser writes it the same in any encoding
  const table = tableFor(encoding);
  let out = "";
  for (const char of query) {
    const point = char.codePointAt(0)!;
    if (point < 0x80) out += char;
    else {
      const bytes = table.get(point);
      out += bytes ? bytes.map(hex).join("") : `%26%23${point}%3B`;
    }
  }
  return href.slice(0, start + 1) + out + href.slice(end);
}
