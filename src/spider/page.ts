/**
 * A Page: a downloaded response as a callback sees it. Everything costly is done lazily and once: the text is
 * decoded on first use, and the DOM is parsed only when something needs it. `links()`, and `css()` of one tag name
 * read for its attributes, with attribute conditions at most (`"a"`, `"a[href]"`, `"img::attr(src)"`: what
 * link-following callbacks ask),
 * are answered from a streaming scan that builds no DOM (element_scan.ts); the DOM is built for anything else, or
 * when such a selection is asked for text or HTML.
 */
import { type Document, type Element, isTag } from "domhandler";
import { type FetchedResponse, makeResponse } from "./response.ts";
import { KnownUrl, PARSED_URL, type ParsedRequestInit, Request, type RequestOptions } from "./request.ts";
import { resolveSimpleHref, type SimpleBase, simpleBase } from "./simple_href.ts";
import { type ParsedSelector, parseSelector, Selection } from "./selection.ts";
import { decodeBody, detectEncodingAndText } from "./charset.ts";
import { isHttpUrl, type LinkScan, needsBase, resolveHref, walkLinks } from "./html_links.ts";
import { scanElements, type ScannedElement } from "./element_scan.ts";
import type { LightDocument, LightElement } from "./light_document.ts";
import { buildLightDocument } from "./light_builder.ts";
import { parseHtmlDocument } from "./linear_parser.ts";
import { answersLight, selectLight } from "./light_select.ts";
import type { XPathOptions } from "./xpath_select.ts";
import type { XPathSelection } from "./xpath_selection.ts";
import type { Session } from "./session.ts";

/** What `Page.fromHtml` takes besides the HTML: where the page is from, and what it answers. */
export interface FromHtmlOptions {
  /** The page's URL, which relative links resolve against; the request's URL when not given. */
  url?: string;
  /** The request the page answers (with its meta, cbKwargs, depth); a GET of `url` when not given. */
  request?: Request;
  /** The HTTP status; 200 when not given. */
  status?: number;
  /** Response headers; `content-type: text/html; charset=utf-8` when not given. */
  headers?: Record<string, string>;
}

/**
 * What `follow` accepts: a URL (absolute or relative to the page), a selection, or a DOM element.
 *
 * Hidden from the generated docs: it names domhandler's Element, which domhandler documents.
 * @ignore
 */
export type FollowTarget = string | Selection | Element;

/** Quick test for a `<base` tag, so pages without one (nearly all) never need a scan to learn their base URL. */
const BASE_TAG = /<base[\s/>]/i;

/** A selector a scan answers: one tag name, with `[attribute]` conditions at most (`::attr()` is taken off first). */
const SCANNABLE = /^\s*([A-Za-z][A-Za-z0-9-]*)((?:\[[a-z][a-z0-9_-]*\])*)\s*$/;
/**
 * The tags a scan answers for: those read for their attributes (links, sources, forms). Others (h1, p, span, div)
 * are read for their text, which needs the DOM: scanning for them first would only add the scan to the DOM's cost.
 */
const SCANNED_TAGS = new Set([
  ..."a area base link meta img image source script iframe frame embed video audio track form input".split(" "),
]);
/** The tags every scan takes along, so that `links()` and the base URL come with the first. */
const LINK_TAGS = ["a", "area", "base"];
/** Scans a page may take before a selector goes to the DOM: past a few, one DOM costs less than more scans. */
const MAX_SCANS = 3;
/**
 * Drops what a page worked out from its body (text, light document, DOM, links, resolved hrefs), for the engine once
 * the callback is done: the page's work is over, but its request still waits for its items to be written, and what
 * lives that long is what the collector copies and promotes. Each is worked out again, the same, if asked for later.
 */
export const RELEASE_DERIVED: unique symbol = Symbol("netweir.releaseDerived");

/** follow()'s default options: told apart by identity, so the common call builds its request without a spread. */
const NO_OPTIONS: RequestOptions = Object.freeze({});

/** The href of a selection's first element (its `::attr()` when it has one, else href, else src). */
function hrefOfSelection(selection: Selection): string | undefined {
  const mode = selection.mode;
  if (mode.kind === "attr") return selection.attr(mode.name);
  return selection.attr("href") ?? selection.attr("src");
}

/** The links and the base among scanned elements (a, area and base ones), as walkLinks finds them in a DOM. */
function linkScanOf<E extends ScannedElement | LightElement>(
  elements: readonly E[],
  nameOf: (element: E) => string = (element) => element.name,
): LinkScan {
  const scan: LinkScan = { base: undefined, hrefs: [] };
  for (const element of elements) {
    const href = element.attribs.href;
    if (href === undefined) continue;
    const name = nameOf(element);
    if (name === "a" || name === "area") scan.hrefs.push(href);
    else if (name === "base" && scan.base === undefined) scan.base = href;
  }
  return scan;
}

/**
 * A downloaded page as a callback sees it: its URL, status, headers and body, CSS selection (`css()`), links
 * (`links()`), and `follow()` to request a link of it.
 *
 * @example Reading a page built from HTML (no network)
 * ```ts
 * import { makeResponse, Page, Request } from "netweir";
 * import assert from "node:assert/strict";
 *
 * const html = `<html><head><title>Shelf</title></head><body>
 *   <h1>New <em>books</em></h1>
 *   <a href="/dune">Dune</a> <a href="https://other.example/emma">Emma</a></body></html>`;
 * const request = new Request("https://books.example/shelf/");
 * const page = new Page(makeResponse(request, { body: html, headers: { "content-type": "text/html" } }));
 *
 * assert.equal(page.css("title").text(), "Shelf");
 * assert.equal(page.css("h1").text(), "New books");
 * assert.deepEqual(page.links(), ["https://books.example/dune", "https://other.example/emma"]);
 * assert.equal(page.follow("/dune").depth, 1);
 * ```
 */
export class Page {
  /** The final URL, after redirects. */
  readonly url: string;
  /** The HTTP status. */
  readonly status: number;
  /**
   * The response headers, with the Fetch standard's `Headers` methods. Netweir's own class (src/runtime/header_list.ts,
   * no WebIDL on the way and no undici to load on Node), so not `instanceof Headers`; `new Headers(page.headers)`
   * makes one.
   */
  readonly headers: Headers;
  /** The body, decompressed. */
  readonly body: Uint8Array;
  /** The request this page answers. */
  readonly request: Request;
  /** The response the page was built from (redirects, latency, source). */
  readonly response: FetchedResponse;
  /**
   * The session the page was fetched in, when the crawl runs with `sessions` (undefined otherwise, and in callback
   * workers): `page.session.retire()` when a page shows the session is no longer welcome.
   */
  session: Session | undefined = undefined;

  /**
   * The protocol that carried the page, by its ALPN name: `h2` (HTTP/2), `http/1.1`, `http/1.0`; undefined for a page
   * not from the network (the cache, a middleware, the browser) or where the client could not tell.
   */
  get protocol(): string | undefined {
    return this.response.protocol;
  }

  #encoding: string | undefined;
  #text: string | undefined;
  #document: Document | undefined;
  #light: LightDocument | undefined;
  #scan: LinkScan | undefined;
  #baseUrl: string | undefined;
  #links: string[] | undefined;
  /**
   * Hrefs resolved so far (as written, and the absolute links `links()` gave), each to its URL or null when it is
   * none: a page repeats its links (image and title of one product), and `follow(url)` on a link of `links()` then
   * costs no parse at all.
   */
  readonly #resolved = new Map<string, URL | KnownUrl | null>();
  /** The base URL's parts for resolving simple hrefs by string (simple_href.ts); null when the base is not http(s). */
  #simpleBase: SimpleBase | null | undefined;
  /** Elements found by scans, by name (each scan takes LINK_TAGS along), and the scan for links in document order. */
  readonly #scannedByName = new Map<string, ScannedElement[]>();
  #scans = 0;

  /** The page of a response; `request` is the one it answers when not the response's own. */
  constructor(response: FetchedResponse, request: Request = response.request) {
    this.response = response;
    this.url = response.url;
    this.status = response.status;
    this.headers = response.headers;
    this.body = response.body;
    this.request = request;
  }

  /**
   * A page built from HTML, as a callback would get it from the crawl: for unit tests of callbacks, and for trying
   * selectors on a saved page. No network; `url` (or `request`) says where the page is from.
   *
   * @example A callback's test
   * ```ts
   * import { Page } from "netweir";
   * import assert from "node:assert/strict";
   *
   * const page = Page.fromHtml(`<h1>Dune</h1><p class="price">£9.99</p><a href="/next">next</a>`, {
   *   url: "https://books.example/dune",
   * });
   * assert.equal(page.css("h1").text(), "Dune");
   * assert.equal(page.xpath("//p[@class='price']/text()").text(), "£9.99");
   * assert.equal(page.follow("/next").url, "https://books.example/next");
   * ```
   */
  static fromHtml(html: string | Uint8Array, options: FromHtmlOptions): Page {
    if (typeof html !== "string" && !(html instanceof Uint8Array)) {
      throw new TypeError("Page.fromHtml: the HTML must be a string or a Uint8Array");
    }
    const url = options?.url ?? options?.request?.url;
    if (typeof url !== "string") throw new TypeError("Page.fromHtml: give the page's url (or a request)");
    const request = options.request ?? new Request(url);
    const headers = options.headers ?? { "content-type": "text/html; charset=utf-8" };
    return new Page(makeResponse(request, { body: html, url, status: options.status, headers }));
  }

  /** See RELEASE_DERIVED. */
  [RELEASE_DERIVED](): void {
    this.#text = undefined;
    this.#light = undefined;
    this.#document = undefined;
    this.#scan = undefined;
    this.#links = undefined;
    this.#resolved.clear();
    this.#scannedByName.clear();
    this.#scans = 0;
  }

  /** The request's meta. */
  get meta(): Record<string, unknown> {
    return this.request.meta;
  }

  /** The keyword arguments the request passes to its callback. */
  get cbKwargs(): Record<string, unknown> {
    return this.request.cbKwargs;
  }

  /** Links followed from a start request to get here (0 for a start request). */
  get depth(): number {
    return this.request.depth;
  }

  /**
   * The body's character encoding: BOM, Content-Type charset, `<meta>` charset in the first 1024 bytes, UTF-8. A
   * rendered page's body is the DOM serialised as UTF-8, whatever its document was sent in.
   */
  get encoding(): string {
    if (this.response.source === "browser") return this.#encoding ??= "utf-8";
    if (this.#encoding === undefined) {
      const { encoding, text } = detectEncodingAndText(this.body, this.headers.get("content-type"));
      this.#encoding = encoding;
      this.#text ??= text;
    }
    return this.#encoding;
  }

  /** Whether the page was rendered in the browser (`render` or `steps`). */
  get rendered(): boolean {
    return this.response.source === "browser";
  }

  /** The JSON results of the request's `evaluate` steps, in step order (empty when none ran). */
  get evaluated(): unknown[] {
    return this.response.rendered?.evaluated ?? [];
  }

  /** The PNG bytes of the last `screenshot` step; undefined when none ran. */
  get screenshot(): Uint8Array | undefined {
    return this.response.rendered?.screenshots.at(-1);
  }

  /** The PNG bytes of every `screenshot` step, in step order. */
  get screenshots(): Uint8Array[] {
    return this.response.rendered?.screenshots ?? [];
  }

  /** The PDF bytes of the last `pdf` step; undefined when none ran. */
  get pdf(): Uint8Array | undefined {
    return this.response.rendered?.pdfs?.at(-1);
  }

  /** The body decoded as text (once, on first use). */
  get text(): string {
    return this.#text ??= decodeBody(this.body, this.encoding);
  }

  /** The body parsed as JSON; throws SyntaxError when it is not JSON. */
  json<T = unknown>(): T {
    return JSON.parse(this.text) as T;
  }

  /** Whether the DOM has been built (it is, on the first `css()`). */
  get domBuilt(): boolean {
    return this.#document !== undefined;
  }

  /**
   * The parsed DOM (a domhandler Document); parsed on first use.
   *
   * Hidden from the generated docs: its type is domhandler's, which domhandler documents.
   * @ignore
   */
  get document(): Document {
    return this.#document ??= parseHtmlDocument(this.text);
  }

  /** The elements matching a CSS selector; may end with `::text` or `::attr(name)`. */
  css(selector: string): Selection {
    if (this.#document === undefined) {
      const parsed = parseSelector(selector);
      // A scan reads less than a parse: it goes first, unless the page has been parsed for an earlier selector.
      const found = (this.#light === undefined ? this.#scannedCss(parsed) : undefined) ?? this.#lightCss(parsed);
      if (found !== undefined) return found;
    }
    return new Selection([this.document]).css(selector);
  }

  /**
   * The results of an XPath 1.0 expression over the page's DOM (`//h1/text()`, `//a/@href`, `count(//li)`), read
   * as `css()`'s are and mixed with them (docs/spiders.md, XPath). The XPath engine loads on first use.
   */
  xpath(expression: string, options?: XPathOptions): XPathSelection {
    return new Selection([this.document]).xpath(expression, options);
  }

  /** Whether the light document has been built (light_document.ts: on the first css() a scan does not answer). */
  get lightBuilt(): boolean {
    return this.#light !== undefined;
  }

  get #lightDocument(): LightDocument {
    return this.#light ??= buildLightDocument(this.text);
  }

  /** The DOM's elements for a selector, for what only the DOM has (a selection's HTML, its nodes). */
  #domSelect(css: string): readonly Element[] {
    return new Selection([this.document]).css(css).elements;
  }

  /** The selection from the light document, for a selector it answers (see light_select.ts); else undefined. */
  #lightCss({ css, mode }: ParsedSelector): Selection | undefined {
    if (css === "" || !answersLight(css)) return undefined;
    const found: readonly LightElement[] = selectLight(this.#lightDocument, css)!;
    return Selection.fromLight(found, () => this.#domSelect(css), mode);
  }

  /** The selection from a scan, for a selector a scan answers exactly (see SCANNABLE); else undefined. */
  #scannedCss({ css, mode }: ParsedSelector): Selection | undefined {
    if (mode.kind === "own") return undefined;
    const simple = SCANNABLE.exec(css);
    if (simple === null) return undefined;
    const tag = simple[1].toLowerCase();
    if (!SCANNED_TAGS.has(tag)) return undefined;
    const elements = this.#scanned(tag);
    if (elements === undefined) return undefined;
    const required = simple[2] === "" ? [] : simple[2].slice(1, -1).split("][");
    // css-select's [name]: an own attribute of that name (domutils' hasAttrib).
    const matched = required.length === 0
      ? elements
      : elements.filter((element) => required.every((name) => Object.hasOwn(element.attribs, name)));
    // The same elements in the light document and in the DOM, found when something a scan lacks is asked of them.
    let inDom: readonly Element[] | undefined;
    let inLight: readonly LightElement[] | undefined;
    return Selection.fromScan(
      matched,
      () => inDom ??= this.#domSelect(css),
      mode,
      () => inLight ??= selectLight(this.#lightDocument, css)!,
    );
  }

  /** The elements of a name (lower case) outside templates, from a scan; undefined once the page has had its scans. */
  #scanned(name: string): ScannedElement[] | undefined {
    let elements = this.#scannedByName.get(name);
    if (elements === undefined) {
      if (this.#scans >= MAX_SCANS) return undefined;
      this.#scans++;
      const names = new Set([name, ...LINK_TAGS]);
      const all = scanElements(this.text, names);
      for (const each of names) this.#scannedByName.set(each, []);
      for (const element of all) this.#scannedByName.get(element.name)!.push(element);
      if (!this.#scan) this.#scan = linkScanOf(all);
      elements = this.#scannedByName.get(name)!;
    }
    return elements;
  }

  /**
   * Every match of `pattern` in the text: capture group 1 when the pattern has groups, else the whole match.
   * A string is compiled as a regular expression.
   */
  re(pattern: RegExp | string): string[] {
    const regex = typeof pattern === "string"
      ? new RegExp(pattern, "g")
      : new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : pattern.flags + "g");
    const found: string[] = [];
    for (const match of this.text.matchAll(regex)) found.push(match.length > 1 ? match[1] ?? "" : match[0]);
    return found;
  }

  /** The URL relative links resolve against: the first `<base href>`, else the page's URL. */
  get baseUrl(): string {
    if (this.#baseUrl === undefined) {
      let base: string | undefined;
      // A DOM, when there is one, is walked as the scan reads the text: a <base> inside a <template> is none.
      if (this.#scan) base = this.#scan.base;
      else if (BASE_TAG.test(this.text)) base = this.#linkScan().base;
      this.#baseUrl = (base !== undefined ? resolveHref(base, this.url, this.encoding)?.href : undefined) ?? this.url;
    }
    return this.#baseUrl;
  }

  #linkScan(): LinkScan {
    // With a DOM already built, walking it is cheaper than parsing the text again.
    return this.#scan ??= this.#document
      ? walkLinks(this.#document.children)
      : this.#light
      ? linkScanOf(this.#light.elements.filter((element) => element.template === -1), (element) => element.lowerName)
      : linkScanOf(scanElements(this.text, new Set(LINK_TAGS)));
  }

  /**
   * The page's absolute http(s) links (`<a href>`, `<area href>`), resolved against the base, fragments dropped,
   * without duplicates, in document order. Builds no DOM.
   */
  links(): string[] {
    this.#links ??= this.#resolveLinks(this.#linkScan().hrefs);
    return [...this.#links];
  }

  /**
   * resolveLinks (html_links.ts) with this page's resolver: each href once, simple ones by string (as follow()
   * resolves them), each link's URL kept under its absolute form so that `follow(link)` parses nothing.
   */
  #resolveLinks(hrefs: readonly string[]): string[] {
    const seen = new Set<string>();
    const links: string[] = [];
    for (const href of hrefs) {
      const url = this.#absolute(href);
      if (url === undefined || !isHttpUrl(url)) continue;
      const hash = url.href.indexOf("#");
      const absolute = hash === -1 ? url.href : url.href.slice(0, hash);
      if (seen.has(absolute)) continue;
      seen.add(absolute);
      links.push(absolute);
      if (!this.#resolved.has(absolute)) {
        this.#resolved.set(absolute, hash === -1 ? url : new KnownUrl(absolute, url.hostname, url.protocol));
      }
    }
    return links;
  }

  /** `href` made absolute against the page, without looking for a base URL when it is absolute already. */
  #absolute(href: string): URL | KnownUrl | undefined {
    let url = this.#resolved.get(href);
    if (url === undefined) {
      const relative = needsBase(href);
      url = (relative ? this.#simple(href) : undefined) ??
        resolveHref(href, relative ? this.baseUrl : this.url, this.encoding) ?? null;
      this.#resolved.set(href, url);
    }
    return url ?? undefined;
  }

  /** `href` resolved by string when it is a simple relative one (see simple_href.ts), else undefined. */
  #simple(href: string): KnownUrl | undefined {
    if (this.#simpleBase === undefined) this.#simpleBase = simpleBase(this.baseUrl) ?? null;
    return this.#simpleBase === null ? undefined : resolveSimpleHref(href, this.#simpleBase);
  }

  /** A request for a resolved link; the URL goes along parsed, so the request does not parse it again. */
  #request(url: URL | KnownUrl, options: RequestOptions): Request {
    const depth = this.request.depth + 1;
    // The usual follow(href) has no options: a literal, not a spread, is the cheaper object to build.
    const init: ParsedRequestInit = options === NO_OPTIONS
      ? { url: url.href, depth, [PARSED_URL]: url }
      : { ...options, url: url.href, depth, [PARSED_URL]: url };
    return new Request(init);
  }

  #targetUrl(target: FollowTarget): string | undefined {
    if (typeof target === "string") return target;
    if (target instanceof Selection) return hrefOfSelection(target);
    if (isTag(target)) return target.attribs.href ?? target.attribs.src;
    throw new TypeError(`follow: expected a URL, a Selection or an element, not ${typeof target}`);
  }

  /**
   * A request for a link of this page, one level deeper. `target` is a URL (relative ones resolve against the
   * page's base), a selection (its first element's `::attr()`, href or src) or an element. Throws TypeError when
   * there is no link to follow or it is no valid URL. A link of another scheme (`mailto:`, `javascript:`, `tel:`)
   * gives a request all the same, which the crawl drops and counts as `scheme`: a spider that follows every href
   * of a page, as tutorials write them, keeps going past a `mailto:` link (Scrapy's `follow` does the same).
   */
  follow(target: FollowTarget, options: RequestOptions = NO_OPTIONS): Request {
    const href = this.#targetUrl(target);
    if (href === undefined) throw new TypeError("follow: the selection has no element with an href or src");
    const url = this.#absolute(href);
    if (url === undefined) throw new TypeError(`follow: not a valid URL: ${JSON.stringify(href)}`);
    return this.#request(url, options);
  }

  /**
   * Requests for several links: URLs, elements, or every element of a selection. Elements without a link, invalid
   * URLs and other schemes (mailto:, javascript:, ...) are skipped silently.
   */
  followAll(targets: Selection | Iterable<FollowTarget>, options: RequestOptions = NO_OPTIONS): Request[] {
    const requests: Request[] = [];
    for (const target of targets) {
      const href = this.#targetUrl(target);
      if (href === undefined) continue;
      const url = this.#absolute(href);
      if (url === undefined || !isHttpUrl(url)) continue;
      requests.push(this.#request(url, options));
    }
    return requests;
  }
}
