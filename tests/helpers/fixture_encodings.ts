/**
 * Pages in legacy encodings for the fixture site, `/encoded/KEY/DECLARED`: KEY one of {@link ENCODED_PAGES}, DECLARED
 * how the page says its encoding: `header` (Content-Type charset), `meta` (a `<meta charset>` at the top), `late-meta`
 * (a `<meta charset>` after 1,500 bytes of style), or `none`. The bytes come from Python's codecs (written out here as
 * hex), not from Netweir, so the decoder under test never made its own fixtures. Each page holds an `<h1>` with the
 * text and a link to `/encoded/target?q=WORD`, the word's bytes written raw in the page's encoding as an author's
 * editor saves them; `/encoded/target` answers any query.
 */
import type { Route } from "./fixture_routes.ts";

export interface EncodedPage {
  /** The label the page declares. */
  label: string;
  /** The `<h1>` text, and its bytes in the encoding (hex). */
  text: string;
  textBytes: string;
  /** The word in the link's query, its bytes (hex), and the query as a browser sends it. */
  word: string;
  wordBytes: string;
  query: string;
}

export const ENCODED_PAGES: Record<string, EncodedPage> = {
  "cp1252": {
    label: "windows-1252",
    text: "\u201cCaf\u00e9\u201d \u2013 5\u20ac",
    textBytes: "93436166e9942096203580",
    word: "caf\u00e9",
    wordBytes: "636166e9",
    query: "caf%E9",
  },
  "latin1": {
    label: "iso-8859-1",
    text: "Cr\u00e8me br\u00fbl\u00e9e \u00e0 \u00bd prix",
    textBytes: "4372e86d65206272fb6ce96520e020bd2070726978",
    word: "cr\u00e8me",
    wordBytes: "6372e86d65",
    query: "cr%E8me",
  },
  "shift_jis": {
    label: "Shift_JIS",
    text: "\u65e5\u672c\u8a9e\u306e\u30da\u30fc\u30b8",
    textBytes: "93fa967b8cea82cc8379815b8357",
    word: "\u65e5\u672c",
    wordBytes: "93fa967b",
    query: "%93%FA%96%7B",
  },
  "gbk": {
    label: "GBK",
    text: "\u4e2d\u6587\u7f51\u9875",
    textBytes: "d6d0cec4cdf8d2b3",
    word: "\u4e2d\u6587",
    wordBytes: "d6d0cec4",
    query: "%D6%D0%CE%C4",
  },
  "euc-kr": {
    label: "EUC-KR",
    text: "\ud55c\uad6d\uc5b4 \ud398\uc774\uc9c0",
    textBytes: "c7d1b1b9beee20c6e4c0ccc1f6",
    word: "\ud55c\uad6d",
    wordBytes: "c7d1b1b9",
    query: "%C7%D1%B1%B9",
  },
};

export const DECLARATIONS = ["header", "meta", "late-meta", "none"] as const;

const ascii = (text: string) => Array.from(text, (char) => char.charCodeAt(0));
const hex = (text: string) => text.match(/../g)!.map((byte) => parseInt(byte, 16));

/** `/encoded/KEY/DECLARED` and `/encoded/target`. */
export const encodedPage: Route = ({ url }) => {
  const [, , key, declared] = url.pathname.split("/");
  if (key === "target") return new Response("<p>target</p>", { headers: { "content-type": "text/html" } });
  const sample = ENCODED_PAGES[key];
  if (!sample || !(DECLARATIONS as readonly string[]).includes(declared)) {
    return new Response(`no encoded page ${url.pathname}\n`, { status: 404 });
  }
  const meta = `<meta charset="${sample.label}">`;
  const style = `<style>${"p { margin: 0 }\n".repeat(100)}</style>`;
  const head = declared === "meta" ? meta : declared === "late-meta" ? style + meta : "";
  const bytes = [
    ...ascii(`<!DOCTYPE html>\n<html><head>${head}<title>${key}</title></head>\n<body><h1>`),
    ...hex(sample.textBytes),
    ...ascii(`</h1>\n<a href="/encoded/target?q=`),
    ...hex(sample.wordBytes),
    ...ascii(`">search</a>\n</body></html>\n`),
  ];
  const type = declared === "header" ? `text/html; charset=${sample.label}` : "text/html";
  return new Response(new Uint8Array(bytes), { headers: { "content-type": type } });
};
