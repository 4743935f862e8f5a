/**
 * Request fingerprints (C4): one function, used by the duplicate filter, the cache, deltafetch and the Redis queue.
 * method + canonical URL + a hash of the body, so `http://A.com:80/p?b=2&a=1#x` and `http://a.com/p?a=1&b=2` are
 * the same request.
 */
import { sha1Hex } from "./sha1.ts";

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
const textEncoder = new TextEncoder();

/** The bytes a URL component stands for: each `%XX` its byte, anything else its UTF-8. */
function componentBytes(text: string): number[] {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "%" && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      const point = text.codePointAt(i)!;
      const char = String.fromCodePoint(point);
      if (point > 0xffff) i++;
      bytes.push(...textEncoder.encode(char));
    }
  }
  return bytes;
}

/**
 * A query name or value in one spelling: `+` is a space (form encoding), and every byte but the unreserved ones
 * (letters, digits, `-._~`) is `%XX` in upper case. Bytes, not text: a query in Shift_JIS or GBK is no UTF-8, and
 * decoding it as UTF-8 would make different queries one.
 */
function canonicalQueryPart(text: string): string {
  if (/^[A-Za-z0-9\-._~]*$/.test(text)) return text; // the common case: nothing to rewrite
  let out = "";
  for (const byte of componentBytes(text.replaceAll("+", "%20"))) {
    const char = String.fromCharCode(byte);
    out += byte < 0x80 && UNRESERVED.test(char) ? char : "%" + byte.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

/** A path with `%XX` of unreserved characters decoded (`%7E` is `~`) and other `%xx` in upper case. */
function canonicalPath(path: string): string {
  return path.replace(/%([0-9A-Fa-f]{2})/g, (escape, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : escape.toUpperCase();
  });
}

/**
 * The URL with scheme and host lower-cased, the default port and fragment dropped, unreserved characters written
 * one way (`%7E` and `~` are one URL, as RFC 3986 says) and the query sorted.
 */
export function canonicalUrl(url: string | URL): string {
  const parsed = new URL(url); // WHATWG URL already lower-cases scheme and host and drops default ports
  // Nothing to drop, sort or decode: the parsed URL is canonical already (the common case, and the cheap one).
  if (!parsed.href.includes("?") && !parsed.href.includes("#") && !parsed.pathname.includes("%")) return parsed.href;
  parsed.hash = "";
  if (parsed.pathname.includes("%")) parsed.pathname = canonicalPath(parsed.pathname);
  const pairs = parsed.search.slice(1).split("&").filter((pair) => pair !== "").map((pair) => {
    const at = pair.indexOf("=");
    return at < 0
      ? [canonicalQueryPart(pair), ""]
      : [canonicalQueryPart(pair.slice(0, at)), canonicalQueryPart(pair.slice(at + 1))];
  });
  pairs.sort(([a, av], [b, bv]) => a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0);
  // Always rewritten, even when empty: setting "" drops a bare "?", so `/p?` and `/p` are the same request.
  parsed.search = pairs.map(([name, value]) => `${name}=${value}`).join("&");
  return parsed.href;
}

/**
 * `canonicalUrl` of a URL the URL parser wrote (a Request's `url`): such a URL without a query, a fragment or a
 * `%` is canonical as it stands, so the common case costs three string searches instead of a parse.
 */
export function canonicalHref(href: string): string {
  return href.includes("?") || href.includes("#") || href.includes("%") ? canonicalUrl(href) : href;
}

/**
 * Where a Request keeps its fingerprint once computed: the duplicate filter, the cache, deltafetch and the
 * checkpoint all ask for it, and a Request's method, URL and body never change.
 */
export const FINGERPRINT_MEMO: unique symbol = Symbol("netweir.fingerprint");

type Described = { method: string; url: string; body?: string };

/** A request's fingerprint: 40 hex characters (SHA-1). */
export function fingerprint(request: { method: string; url: string; body?: string }): string {
  // Only a Request has the memo slot, and its URL is one the parser wrote (so canonicalHref applies).
  if (FINGERPRINT_MEMO in request) {
    const memo = request as Described & { [FINGERPRINT_MEMO]: string | undefined };
    return memo[FINGERPRINT_MEMO] ??= fingerprintOf(request, canonicalHref);
  }
  return fingerprintOf(request, canonicalUrl);
}

function fingerprintOf(request: Described, canonical: (url: string) => string): string {
  // sha1.ts rather than node:crypto: a push of a million URLs computes a million of these, and node:crypto's
  // native buffers made up half of that push's memory.
  const body = request.body ? sha1Hex(request.body) : "";
  return sha1Hex(`${request.method.toUpperCase()}\n${canonical(request.url)}\n${body}`);
}
