/**
 * A request to crawl: what to fetch, and what to do with the answer. Everything in it is plain data except the
 * callback and errback, which may be given as methods of the spider and travel by name when the request is queued.
 * The URL is parsed once, here; what later steps need of it (the host, the fingerprint) is kept on the request.
 */
import { FINGERPRINT_MEMO } from "./fingerprint.ts";

/** A page callback, given as a method of the spider or its name. */
// deno-lint-ignore no-explicit-any
export type CallbackRef = string | ((...args: any[]) => unknown);

/** A browser step (C23); stored and queued as plain JSON. */
export type Step = Record<string, unknown>;

/** How a request is fetched: `true` in the browser, `false` over HTTP, `"auto"` as the crawl finds each kind needs. */
export type RenderOption = boolean | "auto";

/** Login for one request (basic auth). */
export interface RequestAuth {
  /** The user name. */
  user: string;
  /** The password; it is masked in logs. */
  password: string;
}

/** Everything a request can say. Only `url` is required. */
export interface RequestInit {
  /** The absolute URL to fetch. */
  url: string;
  /** The HTTP method; GET by default. */
  method?: string;
  /** Request headers, over the crawl's defaults. */
  headers?: Record<string, string>;
  /** The request body, sent as is. */
  body?: string;
  /** The method that gets the page; the spider's `parse` by default. */
  callback?: CallbackRef;
  /** The method that gets the error when the request fails. */
  errback?: CallbackRef;
  /** Free data carried with the request to its page (`page.meta`); plain JSON when the request is queued. */
  meta?: Record<string, unknown>;
  /** Extra arguments given to the callback after the page, by name. */
  cbKwargs?: Record<string, unknown>;
  /** Higher is fetched first. */
  priority?: number;
  /** Skip the duplicate filter. */
  dontFilter?: boolean;
  /** Seconds to wait for the whole response. */
  timeout?: number;
  /** Whether redirects are followed (true by default). */
  allowRedirects?: boolean;
  /** Basic auth for this request. */
  auth?: RequestAuth;
  /** Browser steps to run on the rendered page (implies `render`). */
  steps?: Step[];
  /**
   * Whether the page is rendered in a browser rather than fetched over HTTP; `"auto"` lets the crawl find out, for
   * each kind of page, whether rendering changes what the callback gets (docs/browser.md).
   */
  render?: RenderOption;
  /** Links followed from a start request to get here; start requests are at depth 0. */
  depth?: number;
  /** Index into the spider's `rules` when the request came from a Rule. */
  rule?: number;
}

/** The options of a request other than its URL, as `Page.follow` takes them. */
export type RequestOptions = Omit<RequestInit, "url">;

/**
 * A URL the caller has parsed already (a link a page resolved), handed to the constructor beside `url` so it is not
 * parsed a second time. Not part of the public API: only code of this package sets it.
 */
export const PARSED_URL: unique symbol = Symbol("netweir.parsedUrl");

/**
 * The parts of a URL the parser would write, found without it: a link resolved by string (simple_href.ts) or a
 * request taken from the packed queue, whose URL a Request wrote. Only code of this package makes them.
 */
export class KnownUrl {
  constructor(readonly href: string, readonly hostname: string, readonly protocol: string) {}
}

/** RequestInit with the URL parsed already (see PARSED_URL). */
export interface ParsedRequestInit extends RequestInit {
  [PARSED_URL]?: URL | KnownUrl;
}

/**
 * A request to fetch a URL and hand the page to a callback. Requests are plain data: a queued request keeps every
 * field, and its callback travels by name.
 *
 * @example
 * ```ts
 * import { Request } from "netweir";
 * import assert from "node:assert/strict";
 *
 * const request = new Request({ url: "https://Example.com/books?page=2", priority: 5, meta: { shelf: "new" } });
 * assert.equal(request.host, "example.com");
 * assert.equal(request.method, "GET");
 * assert.equal(request.depth, 0);
 *
 * // replace() changes some fields and keeps the rest.
 * const post = request.replace({ method: "POST", body: "q=dune" });
 * assert.equal(post.method, "POST");
 * assert.deepEqual(post.meta, { shelf: "new" });
 * ```
 */
export class Request {
  /** The absolute URL to fetch. */
  readonly url: string;
  /** The HTTP method, upper case. */
  readonly method: string;
  /** Request headers, over the crawl's defaults. */
  readonly headers: Record<string, string>;
  /** The request body, if any. */
  readonly body: string | undefined;
  /** The method that gets the page, or its name; undefined means the spider's `parse`. */
  readonly callback: CallbackRef | undefined;
  /** The method that gets the error when the request fails, or its name. */
  readonly errback: CallbackRef | undefined;
  /** Free data carried with the request to its page. */
  readonly meta: Record<string, unknown>;
  /** Extra arguments given to the callback after the page, by name. */
  readonly cbKwargs: Record<string, unknown>;
  /** Higher is fetched first. */
  readonly priority: number;
  /** Whether the duplicate filter is skipped. */
  readonly dontFilter: boolean;
  /** Seconds to wait for the whole response; undefined means the `timeout` setting. */
  readonly timeout: number | undefined;
  /** Whether redirects are followed. */
  readonly allowRedirects: boolean;
  /** Basic auth for this request. */
  readonly auth: RequestAuth | undefined;
  /** Browser steps to run on the rendered page. */
  readonly steps: Step[] | undefined;
  /** Whether the page is rendered in a browser: true, false, or `"auto"` (the crawl decides per kind of page). */
  readonly render: RenderOption;
  /** Links followed from a start request to get here; start requests are at depth 0. */
  readonly depth: number;
  /** Index into the spider's `rules` when the request came from a Rule. */
  readonly rule: number | undefined;
  /**
   * The URL's host name, lower case: the key of its per-domain slot. Kept from the parse the constructor does
   * anyway, since the engine asks for it several times for every request.
   */
  readonly host: string;
  /** The fingerprint, once something asked for it (see fingerprint.ts). */
  [FINGERPRINT_MEMO]: string | undefined = undefined;

  /** A request from a URL, or from everything a request can say (see {@link RequestInit}). */
  constructor(init: RequestInit | string) {
    const options: ParsedRequestInit = typeof init === "string" ? { url: init } : init;
    let parsed = options[PARSED_URL];
    // Trusted only when it is a URL that serialises to `url` itself, so url and host can never disagree.
    if (!(parsed instanceof URL || parsed instanceof KnownUrl) || parsed.href !== options.url) {
      try {
        parsed = new URL(options.url);
      } catch {
        throw new TypeError(`Request URL is not an absolute URL: ${JSON.stringify(options.url)}`);
      }
    }
    this.url = parsed.href;
    this.host = parsed.hostname;
    this.method = (options.method ?? "GET").toUpperCase();
    this.headers = { ...options.headers };
    this.body = options.body;
    this.callback = options.callback;
    this.errback = options.errback;
    this.meta = { ...options.meta };
    this.cbKwargs = { ...options.cbKwargs };
    this.priority = options.priority ?? 0;
    if (!Number.isFinite(this.priority)) throw new RangeError(`Request priority must be a finite number`);
    this.dontFilter = options.dontFilter ?? false;
    this.timeout = options.timeout;
    this.allowRedirects = options.allowRedirects ?? true;
    this.auth = options.auth;
    this.steps = options.steps;
    this.render = options.render ?? false;
    if (this.render !== true && this.render !== false && this.render !== "auto") {
      throw new TypeError(`Request render must be true, false or "auto", not ${JSON.stringify(this.render)}`);
    }
    this.depth = options.depth ?? 0;
    this.rule = options.rule;
  }

  /** A copy with some options changed, as Scrapy's `request.replace()`. */
  replace(changes: Partial<RequestInit>): Request {
    return new Request({ ...this.toInit(), ...changes });
  }

  /** The options this request was built from. */
  toInit(): RequestInit {
    return {
      url: this.url,
      method: this.method,
      headers: this.headers,
      body: this.body,
      callback: this.callback,
      errback: this.errback,
      meta: this.meta,
      cbKwargs: this.cbKwargs,
      priority: this.priority,
      dontFilter: this.dontFilter,
      timeout: this.timeout,
      allowRedirects: this.allowRedirects,
      auth: this.auth,
      steps: this.steps,
      render: this.render,
      depth: this.depth,
      rule: this.rule,
    };
  }
}
