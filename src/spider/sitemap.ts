/**
 * Sitemaps (C6): what the spider's built-in `_sitemap` callback does with a robots.txt, a sitemap index or a
 * sitemap, as Scrapy's SitemapSpider does. Pure functions of the page and the spider's sitemap fields, so the
 * callback can travel by name in a shared queue like any other.
 *
 * - a robots.txt: each `Sitemap:` line becomes a request for that sitemap;
 * - a sitemap index (`<sitemapindex>`): each `<sitemap><loc>` that a `sitemapFollow` pattern matches;
 * - a sitemap (`<urlset>`): each `<url><loc>` (and its `xhtml:link` alternates with `sitemapAlternateLinks`) goes to
 *   the callback of the first `sitemapRules` pattern it matches; a URL no rule matches is left out.
 *
 * Bodies may be gzipped (`.xml.gz`, sent as is): they are decompressed here, up to {@link MAX_SITEMAP_BYTES}, the
 * sitemap protocol's own limit.
 */
import { gunzipSync } from "node:zlib";
import type { Element } from "domhandler";
import { findAll, textContent } from "domutils";
import { parseDocument } from "htmlparser2";
import type { Page } from "./page.ts";
import { type CallbackRef, PARSED_URL, type ParsedRequestInit, Request } from "./request.ts";

/** The sitemap protocol's limit on one file, uncompressed. */
export const MAX_SITEMAP_BYTES = 50 * 1024 * 1024;

/** A URL pattern of `sitemapRules` and `sitemapFollow`: a RegExp, or a string read as one (searched, not anchored). */
export type SitemapPattern = string | RegExp;

/** What `_sitemap` reads from the spider. */
export interface SitemapOptions {
  rules: ReadonlyArray<readonly [SitemapPattern, CallbackRef]>;
  follow: readonly SitemapPattern[];
  alternateLinks: boolean;
}

/**
 * A test of URLs against patterns, each string compiled the first time it is needed and then kept: a sitemap lists up
 * to 50,000 URLs, each tried against the rules in turn.
 */
function patternMatcher(): (pattern: SitemapPattern, url: string) => boolean {
  const compiled = new Map<string, RegExp>();
  return (pattern, url) => {
    if (typeof pattern !== "string") return pattern.test(url);
    let regex = compiled.get(pattern);
    if (regex === undefined) compiled.set(pattern, regex = new RegExp(pattern));
    return regex.test(url);
  };
}

/** The body as text: gunzipped when it is gzip (a `.xml.gz` served as is), as UTF-8 either way. */
function sitemapText(page: Page): string {
  const body = page.body;
  const gzipped = body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b;
  const bytes = gzipped ? gunzipSync(body, { maxOutputLength: MAX_SITEMAP_BYTES }) : body;
  return new TextDecoder().decode(bytes);
}

/** The local name of an XML element (`sitemap:urlset` and `urlset` alike), lower case. */
function localName(element: Element): string {
  return element.name.toLowerCase().replace(/^.*:/, "");
}

function absoluteHttpUrl(text: string, base: string): URL | undefined {
  const url = URL.parse(text.trim(), base);
  return url && (url.protocol === "http:" || url.protocol === "https:") ? url : undefined;
}

/** A request for a URL parsed already (see PARSED_URL). */
function requestFor(url: URL, callback: CallbackRef): Request {
  const init: ParsedRequestInit = { url: url.href, callback, [PARSED_URL]: url };
  return new Request(init);
}

/** The requests a robots.txt, sitemap index or sitemap page leads to. Throws TypeError for anything else. */
export function sitemapRequests(page: Page, options: SitemapOptions): Request[] {
  if (new URL(page.url).pathname.endsWith("/robots.txt")) {
    const out: Request[] = [];
    for (const match of page.text.matchAll(/^[ \t]*sitemap[ \t]*:[ \t]*(\S+)/gim)) {
      const url = absoluteHttpUrl(match[1], page.url);
      if (url) out.push(requestFor(url, "_sitemap"));
    }
    return out;
  }
  const matches = patternMatcher();
  let text: string;
  try {
    text = sitemapText(page);
  } catch (error) {
    throw new TypeError(`${page.url} is not a readable sitemap: ${(error as Error).message}`);
  }
  const document = parseDocument(text, { xmlMode: true });
  const root = document.children.find((node): node is Element => node.type === "tag");
  const kind = root ? localName(root) : "";
  if (kind === "sitemapindex") {
    const out: Request[] = [];
    for (const sitemap of findAll((element) => localName(element) === "sitemap", root!.children)) {
      const url = locOf(sitemap, page.url);
      if (url && options.follow.some((pattern) => matches(pattern, url.href))) out.push(requestFor(url, "_sitemap"));
    }
    return out;
  }
  if (kind === "urlset") {
    const out: Request[] = [];
    for (const entry of findAll((element) => localName(element) === "url", root!.children)) {
      const urls = [locOf(entry, page.url)];
      if (options.alternateLinks) {
        for (const link of findAll((element) => localName(element) === "link", entry.children)) {
          if (link.attribs.rel === "alternate" && link.attribs.href) {
            urls.push(absoluteHttpUrl(link.attribs.href, page.url));
          }
        }
      }
      for (const url of urls) {
        if (!url) continue;
        const rule = options.rules.find(([pattern]) => matches(pattern, url.href));
        if (rule) out.push(requestFor(url, rule[1]));
      }
    }
    return out;
  }
  throw new TypeError(`${page.url} is not a sitemap (its root element is ${root ? `<${root.name}>` : "missing"})`);
}

/** The URL of an entry's `<loc>`, resolved against the sitemap's own URL; undefined when missing or not http(s). */
function locOf(entry: Element, base: string): URL | undefined {
  const loc = findAll((element) => localName(element) === "loc", entry.children)[0];
  return loc ? absoluteHttpUrl(textContent(loc), base) : undefined;
}
