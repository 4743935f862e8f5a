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

/** Login for one request (basic auth). */
export interface RequestAuth {
  user: string;
  password: string;
}

/** Everything a request can say. Only `url` is required. */
export interface RequestInit {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  callback?: CallbackRef;
  errback?: CallbackRef;
  meta?: Record<string, unknown>;
  cbKwargs?: Record<string, unknown>;
  /** Higher is fetched first. */
  priority?: number;
  /** Skip the duplicate filter. */
  dontFilter?: boolean;
  /** Seconds to wait for the whole response. */
  timeout?: number;
  allowRedirects?: boolean;
  auth?: RequestAuth;
  steps?: Step[];
  render?: boolean;
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

/** RequestInit with the URL parsed already (see PARSED_URL). */
export interface ParsedRequestInit extends RequestInit {
  [PARSED_URL]?: URL;
}

/** A request to fetch a URL and hand the page to a callback. */
export class Request {
  readonly url: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
  readonly callback: CallbackRef | undefined;
  readonly errback: CallbackRef | undefined;
  readonly meta: Record<string, unknown>;
  readonly cbKwargs: Record<string, unknown>;
  readonly priority: number;
  readonly dontFilter: boolean;
  readonly timeout: number | undefined;
  readonly allowRedirects: boolean;
  readonly auth: RequestAuth | undefined;
  readonly steps: Step[] | undefined;
  readonly render: boolean;
  readonly depth: number;
  readonly rule: number | undefined;
  /**
   * The URL's host name, lower case: the key of its per-domain slot. Kept from the parse the constructor does
   * anyway, since the engine asks for it several times for every request.
   */
  readonly host: string;
  /** The fingerprint, once something asked for it (see fingerprint.ts). */
  [FINGERPRINT_MEMO]: string | undefined = undefined;

  constructor(init: RequestInit | string) {
    const options: ParsedRequestInit = typeof init === "string" ? { url: init } : init;
    let parsed = options[PARSED_URL];
    // Trusted only when it is a URL that serialises to `url` itself, so url and host can never disagree.
    if (!(parsed instanceof URL) || parsed.href !== options.url) {
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
