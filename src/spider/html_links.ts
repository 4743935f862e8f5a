/**
 * Finding the links of an HTML page: `<a href>` and `<area href>` (what Scrapy's LinkExtractor reads) and the
 * first `<base href>`, in a DOM (a page that has no DOM scans its text for them, see element_scan.ts and page.ts),
 * and resolving them.
 */
import { encodeQuery } from "./query_encoding.ts";
import { type AnyNode, type Element, isTag } from "domhandler";

/** Raw link targets in document order, as written in the page (entities decoded, not yet resolved). */
export interface LinkScan {
  /** The first `<base href>`'s value, if any. */
  base: string | undefined;
  hrefs: string[];
}

function isLinkTag(name: string): boolean {
  return name === "a" || name === "area";
}

/** The links and base among DOM nodes (each node and its descendants), outside templates. */
export function walkLinks(nodes: readonly AnyNode[]): LinkScan {
  const scan: LinkScan = { base: undefined, hrefs: [] };
  // An explicit stack instead of recursion: real pages nest deep enough to matter.
  const stack: AnyNode[] = [...nodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isTag(node)) visit(node, scan);
    // A <template>'s content is no part of the document: css() does not search it, nor does the scan.
    if (isTag(node) && node.name === "template") continue;
    if ("children" in node) { for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]); }
  }
  return scan;
}

function visit(element: Element, scan: LinkScan): void {
  const href = element.attribs.href;
  if (href === undefined) return;
  if (isLinkTag(element.name)) scan.hrefs.push(href);
  else if (element.name === "base" && scan.base === undefined) scan.base = href;
}

/** A scheme at the very start of a URL string (a leading space or control makes the parser's answer differ). */
const SCHEME = /^([a-z][a-z0-9+.\-]*):/i;
/** The URL standard's special schemes but file: the ones whose links may be relative in spite of their scheme. */
const SPECIAL = new Set(["http", "https", "ws", "wss", "ftp"]);
const isSlash = (code: number) => code === 0x2f || code === 0x5c;

/**
 * `href` resolved against `base`; undefined when it is not a valid URL. `encoding` is the page's: a query is written
 * in it, as browsers send it (see query_encoding.ts); UTF-8 when not given.
 */
export function resolveHref(href: string, base: string, encoding = "utf-8"): URL | undefined {
  return URL.parse(encodeQuery(href, encoding), base) ?? undefined;
}

/**
 * Whether resolving a href may depend on the page's base URL; false only where the URL parser never reads the base.
 * A scheme is not enough: `http:foo.com` or `http:/foo` on a page whose base is http is relative to that base
 * (`http://example.org/foo/foo.com` under `<base href="http://example.org/foo/bar">`), as browsers and Scrapy resolve
 * it. Only a special scheme followed by two slashes (`/` or `\`), or a scheme that is not special, is independent of
 * the base; file: and anything unusual (leading spaces, tabs, controls) are given the base, which is always right.
 */
export function needsBase(href: string): boolean {
  const scheme = SCHEME.exec(href);
  if (scheme === null) return true;
  const name = scheme[1].toLowerCase();
  if (name === "file") return true;
  if (!SPECIAL.has(name)) return false;
  const after = scheme[0].length;
  return !(isSlash(href.charCodeAt(after)) && isSlash(href.charCodeAt(after + 1)));
}

/** Whether a URL is http or https, the only links a crawl follows. */
export function isHttpUrl(url: { readonly protocol: string }): boolean {
  return url.protocol === "http:" || url.protocol === "https:";
}

/**
 * Absolute http(s) URLs of `hrefs` against `base`: fragments dropped, duplicates and other schemes left out. Each
 * link's URL is put in `resolved` under its absolute form, when given (a page's, for `follow` to find).
 */
export function resolveLinks(
  hrefs: readonly string[],
  base: string,
  encoding = "utf-8",
  resolved?: { set(href: string, url: URL): unknown },
): string[] {
  const seen = new Set<string>();
  const tried = new Set<string>();
  const links: string[] = [];
  for (const href of hrefs) {
    // Pages repeat links (image and title to the same item); parsing a URL is the costly part, so do it once.
    if (tried.has(href)) continue;
    tried.add(href);
    const url = resolveHref(href, base, encoding);
    if (url === undefined || !isHttpUrl(url)) continue;
    url.hash = "";
    const absolute = url.href;
    if (seen.has(absolute)) continue;
    seen.add(absolute);
    links.push(absolute);
    resolved?.set(absolute, url);
  }
  return links;
}
