/**
 * A page's relative links resolved by string, without the URL parser: a product page of a shop has two dozen links,
 * mostly `./7.html`, `../p/7.html#top`, `/p/7.html?ref=x`, and a URL parse for each was a tenth of a crawl's CPU.
 *
 * Only hrefs the parser would copy character for character take this way: path-relative or path-absolute (not `//`,
 * not `?` or `#` alone, no scheme), made of letters, digits and `-._~!$&()*+,;=@/` in the path (no `:`, so no
 * scheme; no `%`, so no `%2e` dot segment; nothing the parser percent-encodes, no backslash, no whitespace), and the
 * same plus `?` and `:` in a query and a fragment. Against an http(s) base, the WHATWG parser then keeps the base's
 * scheme, credentials, host and port, drops the base's last path segment (for a path-relative href), and
 * removes dot segments; that is all this does. Anything else gets undefined, and the caller parses. A test holds it to
 * `URL.parse` on generated hrefs.
 */
import { KnownUrl } from "./request.ts";

const SIMPLE = /^[A-Za-z0-9\-._~!$&()*+,;=@/]*(\?[A-Za-z0-9\-._~!$&()*+,;=@/?:]*)?(#[A-Za-z0-9\-._~!$&()*+,;=@/?:]*)?$/;

/** A "." or ".." segment anywhere in a path. */
const DOT_SEGMENT = /(?:^|\/)\.\.?(?:\/|$)/;

/** What resolving against a base needs of it, from one parse. */
export interface SimpleBase {
  /** Scheme, credentials, host and port: the href up to its path. */
  prefix: string;
  /** The base's path segments without the last one (what a path-relative href starts from). */
  directory: readonly string[];
  /** `prefix`, "/" and the directory's segments, each followed by "/": what a path-relative href is appended to. */
  directoryHref: string;
  hostname: string;
  protocol: string;
}

/** The parts of an http(s) base URL; undefined for any other. */
export function simpleBase(base: string): SimpleBase | undefined {
  const url = URL.parse(base);
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) return undefined;
  const href = url.href;
  const pathStart = href.indexOf("/", url.protocol.length + 2);
  const segments = url.pathname.split("/").slice(1, -1);
  const prefix = href.slice(0, pathStart);
  const directoryHref = prefix + "/" + segments.map((segment) => segment + "/").join("");
  return { prefix, directory: segments, directoryHref, hostname: url.hostname, protocol: url.protocol };
}

/** `href` resolved against `base` as the URL parser would, or undefined when it is not a simple href. */
export function resolveSimpleHref(href: string, base: SimpleBase): KnownUrl | undefined {
  if (href === "" || href.charCodeAt(0) === 0x3f || href.charCodeAt(0) === 0x23) return undefined; // "", ?, #
  if (href.startsWith("//")) return undefined;
  const match = SIMPLE.exec(href);
  if (match === null) return undefined;
  const rest = (match[1] ?? "") + (match[2] ?? "");
  const pathText = href.slice(0, href.length - rest.length);
  const absolute = pathText.charCodeAt(0) === 0x2f;
  // Without dot segments the href is appended as it is (the common case, built without arrays).
  if (!DOT_SEGMENT.test(pathText)) {
    return new KnownUrl(flat(absolute ? base.prefix : base.directoryHref, href), base.hostname, base.protocol);
  }
  const path = absolute ? [] : base.directory.slice();
  const parts = pathText.split("/");
  // A path-absolute href's first part is the empty one before its "/".
  for (let i = absolute ? 1 : 0; i < parts.length; i++) {
    const part = parts[i];
    const last = i === parts.length - 1;
    if (part === "..") {
      path.pop();
      if (last) path.push("");
    } else if (part === ".") {
      if (last) path.push("");
    } else path.push(part);
  }
  return new KnownUrl(flat(`${base.prefix}/`, path.join("/"), rest), base.hostname, base.protocol);
}

/**
 * The pieces as one new string. An href is a slice of the page's text, and `a + href` is a string that points into
 * it: a request's URL (kept by the duplicate filter's recent keys) would hold the whole page alive. A join copies.
 */
function flat(...pieces: string[]): string {
  return pieces.join("");
}
