/**
 * A Page: a downloaded response as a callback sees it. Everything costly is done lazily and once: the text is
 * decoded on first use, the DOM is parsed on the first `css()`, and `links()` uses a streaming scan that builds no
 * DOM at all, so a callback that only reads `text`, `json()` or `links()` never pays for a DOM.
 */
import { parseDocument } from "htmlparser2";
import { type Document, type Element, isTag } from "domhandler";
import { findOne } from "domutils";
import type { FetchedResponse } from "./response.ts";
import { Request, type RequestOptions } from "./request.ts";
import { Selection } from "./selection.ts";
import { decodeBody, detectEncoding } from "./charset.ts";
import { isHttpUrl, type LinkScan, needsBase, resolveHref, resolveLinks, scanLinks, walkLinks } from "./html_links.ts";

/**
 * What `follow` accepts: a URL (absolute or relative to the page), a selection, or a DOM element.
 *
 * Hidden from the generated docs: it names domhandler's Element, which domhandler documents.
 * @ignore
 */
export type FollowTarget = string | Selection | Element;

/** Quick test for a `<base` tag, so pages without one (nearly all) never need a scan to learn their base URL. */
const BASE_TAG = /<base[\s/>]/i;

/** The href of a selection's first element (its `::attr()` when it has one, else href, else src). */
function hrefOfSelection(selection: Selection): string | undefined {
  const mode = selection.mode;
  if (mode.kind === "attr") return selection.attr(mode.name);
  return selection.attr("href") ?? selection.attr("src");
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
  /** The response headers. */
  readonly headers: Headers;
  /** The body, decompressed. */
  readonly body: Uint8Array;
  /** The request this page answers. */
  readonly request: Request;
  /** The response the page was built from (redirects, latency, source). */
  readonly response: FetchedResponse;

  #encoding: string | undefined;
  #text: string | undefined;
  #document: Document | undefined;
  #scan: LinkScan | undefined;
  #baseUrl: string | undefined;
  #links: string[] | undefined;

  /** The page of a response; `request` is the one it answers when not the response's own. */
  constructor(response: FetchedResponse, request: Request = response.request) {
    this.response = response;
    this.url = response.url;
    this.status = response.status;
    this.headers = response.headers;
    this.body = response.body;
    this.request = request;
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
    return this.#encoding ??= detectEncoding(this.body, this.headers.get("content-type"));
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
    return this.#document ??= parseDocument(this.text);
  }

  /** The elements matching a CSS selector; may end with `::text` or `::attr(name)`. */
  css(selector: string): Selection {
    return new Selection([this.document]).css(selector);
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
      if (this.#scan) base = this.#scan.base;
      else if (this.#document) {
        base = findOne((el) => el.name === "base" && el.attribs.href !== undefined, this.#document.children)
          ?.attribs.href;
      } else if (BASE_TAG.test(this.text)) base = this.#linkScan().base;
      this.#baseUrl = (base !== undefined ? resolveHref(base, this.url, this.encoding)?.href : undefined) ?? this.url;
    }
    return this.#baseUrl;
  }

  #linkScan(): LinkScan {
    // With a DOM already built, walking it is cheaper than parsing the text again.
    return this.#scan ??= this.#document ? walkLinks(this.#document.children) : scanLinks(this.text);
  }

  /**
   * The page's absolute http(s) links (`<a href>`, `<area href>`), resolved against the base, fragments dropped,
   * without duplicates, in document order. Builds no DOM.
   */
  links(): string[] {
    this.#links ??= resolveLinks(this.#linkScan().hrefs, this.baseUrl, this.encoding);
    return [...this.#links];
  }

  /** `href` made absolute against the page, without looking for a base URL when it is absolute already. */
  #absolute(href: string): URL | undefined {
    return resolveHref(href, needsBase(href) ? this.baseUrl : this.url, this.encoding);
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
   * there is no link to follow or it is not http(s).
   */
  follow(target: FollowTarget, options: RequestOptions = {}): Request {
    const href = this.#targetUrl(target);
    if (href === undefined) throw new TypeError("follow: the selection has no element with an href or src");
    const url = this.#absolute(href);
    if (url === undefined) throw new TypeError(`follow: not a valid URL: ${JSON.stringify(href)}`);
    if (!isHttpUrl(url)) throw new TypeError(`follow: not an http(s) link: ${url.href}`);
    return new Request({ ...options, url: url.href, depth: this.depth + 1 });
  }

  /**
   * Requests for several links: URLs, elements, or every element of a selection. Elements without a link, invalid
   * URLs and other schemes (mailto:, javascript:, ...) are skipped silently.
   */
  followAll(targets: Selection | Iterable<FollowTarget>, options: RequestOptions = {}): Request[] {
    const requests: Request[] = [];
    for (const target of targets) {
      const href = this.#targetUrl(target);
      if (href === undefined) continue;
      const url = this.#absolute(href);
      if (url === undefined || !isHttpUrl(url)) continue;
      requests.push(new Request({ ...options, url: url.href, depth: this.depth + 1 }));
    }
    return requests;
  }
}
