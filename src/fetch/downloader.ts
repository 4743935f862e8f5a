/**
 * The download side of a crawl (C8): one request in, one {@link FetchedResponse} out, or a {@link FetchError} saying
 * why not. Redirects are followed here by hand rather than by fetch, because each hop needs its cookies stored, its
 * credentials re-decided for the new host, and its method possibly changed. Retries are not done here: the engine
 * decides them with src/fetch/retry.ts, so they go back through the scheduler and its politeness.
 *
 * Everything is per Downloader (its cookie jar, proxy rotation, HTTP clients): two crawls in one process share
 * nothing.
 */
import { CookieJar } from "tough-cookie";
import { CrawlCookieStore } from "./cookie_store.ts";
import { FetchError } from "../errors.ts";
import type { HttpClient, HttpResponse } from "../runtime/mod.ts";
import type { ConnectionCounts, Http2Mode } from "../runtime/types.ts";
import { type SettingValues, TABLE } from "../settings/table.ts";
import type { Request } from "../spider/request.ts";
import type { Logger } from "../spider/types.ts";
import { describeNetworkFailure } from "./network_errors.ts";
import { ACCEPT_ENCODING, checkContentLength, decodeBody, readBody } from "./body.ts";
import { basicAuthorization, credentialsFor } from "./credentials.ts";
import { ClientPool, MAX_CLIENTS } from "./client_pool.ts";
import { idleConnectionBound } from "./idle_connections.ts";
import { openFileLimit } from "../runtime/open_file_limit.ts";
import { crawlResolver, type ResolverSettings } from "./host_resolver.ts";
import { Deadlines } from "./deadlines.ts";
import { ProxyRotation } from "./proxy_rotation.ts";
import type { FetchedResponse, RedirectHop } from "../spider/response.ts";
import { HeaderList } from "../runtime/header_list.ts";
import { settingsByHost } from "../settings/by_host.ts";
import type { FetchSession } from "./fetch_session.ts";

/** Options for one {@link Downloader.fetch}. */
export interface FetchOptions {
  /** Aborts the fetch (FetchError `aborted`), e.g. when the crawl stops at once. */
  signal?: AbortSignal;
  /**
   * Asked before each redirect is followed. A refusal ends the fetch with a {@link RedirectRefused}: the crawl's
   * rules (allowedDomains, robots.txt) apply to where a redirect leads as to any link.
   */
  checkRedirect?: (target: URL) => Promise<RedirectRefusal | undefined>;
  /** The session (the `sessions` setting) to fetch as: its cookie jar, proxy, user agent and headers. */
  session?: FetchSession;
}

/** Why a redirect was not followed: the stats key it is counted under (`dropped`) and a detail for the log. */
export interface RedirectRefusal {
  reason: string;
  detail: string;
}

/** A fetch that stopped at a redirect the crawl's rules do not allow. Not a failure: nothing is retried. */
export class RedirectRefused extends Error {
  override name = "RedirectRefused";
  readonly refusal: RedirectRefusal;
  readonly target: string;
  constructor(from: string, target: string, refusal: RedirectRefusal) {
    super(`${from} redirects to ${target}, which is not followed (${refusal.reason}: ${refusal.detail})`);
    this.target = target;
    this.refusal = refusal;
  }
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers describing a request body, dropped with the body when a redirect turns the request into a GET. */
const BODY_HEADERS = ["content-type", "content-length", "content-encoding", "transfer-encoding"];

/** The settings the downloader reads. */
export type DownloaderSettings =
  & Pick<
    SettingValues,
    | "timeout"
    | "maxRedirects"
    | "cookies"
    | "httpAuth"
    | "proxies"
    | "proxyRotation"
    | "userAgent"
    | "defaultHeaders"
    | "maxBodySize"
  >
  & ResolverSettings
  & { http2?: SettingValues["http2"] }
  & { hosts?: SettingValues["hosts"] }
  & { concurrency?: SettingValues["concurrency"] };

/** Fetches requests the way the crawl's settings say: headers, redirects, timeouts, size limit, cookies, auth, proxies. */
export class Downloader {
  readonly #settings: DownloaderSettings;
  readonly #log: Logger;
  readonly #jar: CookieJar | undefined;
  readonly #cookieStore = new CrawlCookieStore();
  /** The settings for a host: the crawl's, or its `hosts` entry over them (src/settings/hosts.ts). */
  readonly #settingsOf: (host: string) => DownloaderSettings;
  /** A proxy rotation for the crawl's proxies, and one for each `hosts` entry's (made on first use). */
  readonly #rotations = new Map<DownloaderSettings, ProxyRotation>();
  /** One client (connection pool) per proxy, created on first use, the least recently used idle ones closed. */
  readonly #clients: ClientPool;
  readonly #proxyUsed = new WeakMap<FetchedResponse, string>();
  /** The timeouts of the requests in flight, under one timer. */
  readonly #deadlines = new Deadlines();
  /** The requests in flight under each caller's signal (see #follow). */
  readonly #following = new WeakMap<AbortSignal, Set<AbortController>>();
  #closed = false;

  constructor(settings: DownloaderSettings, log: Logger) {
    this.#settings = settings;
    this.#log = log;
    this.#jar = settings.cookies ? new CookieJar(this.#cookieStore) : undefined;
    this.#settingsOf = settingsByHost(settings, settings.hosts);
    // Without a concurrency (a downloader used alone, as `netweir fetch` does), the bound for the crawl's default.
    const concurrency = settings.concurrency ?? TABLE.concurrency.default;
    const maxIdle = idleConnectionBound(concurrency, openFileLimit());
    this.#clients = new ClientPool(MAX_CLIENTS, crawlResolver(settings), maxIdle);
    this.#rotations.set(settings, new ProxyRotation(settings.proxies, settings.proxyRotation));
  }

  /** This downloader's cookie jar (undefined when the `cookies` setting is off), e.g. for a browser to share. */
  get cookieJar(): CookieJar | undefined {
    return this.#jar;
  }

  /**
   * The proxy a request goes through: meta `proxy` when the request has one ("" or null: none), else the next from
   * `proxies` by `proxyRotation`. Per request, each call moves the rotation on; to know which proxy a response
   * came through, use {@link proxyUsed}. A session with a proxy of its own goes through that one.
   */
  proxyFor(request: Request, session?: FetchSession): string | undefined {
    if (Object.hasOwn(request.meta, "proxy")) {
      const proxy = request.meta.proxy;
      if (proxy === "" || proxy === null || proxy === undefined) return undefined;
      if (typeof proxy !== "string" || !URL.canParse(proxy)) {
        throw new TypeError(`meta proxy must be a proxy URL, "" or null, not ${JSON.stringify(proxy)}`);
      }
      return proxy;
    }
    if (session?.proxy !== undefined) return session.proxy;
    return this.#rotationFor(request.host).choose(request.host);
  }

  #rotationFor(host: string): ProxyRotation {
    const settings = this.#settingsOf(host);
    let rotation = this.#rotations.get(settings);
    if (rotation === undefined) {
      rotation = new ProxyRotation(settings.proxies, settings.proxyRotation);
      this.#rotations.set(settings, rotation);
    }
    return rotation;
  }

  /**
   * Another proxy from `proxies` than those in `exclude`, to retry a blocked request through (the engine puts it
   * in the retry's meta `proxy`); undefined when none is left. Per domain, the host keeps the new proxy from then on.
   */
  nextProxy(request: Request, exclude: string | Iterable<string> = []): string | undefined {
    return this.#rotationFor(request.host).next(request.host, typeof exclude === "string" ? [exclude] : exclude);
  }

  /** The proxy a response came through, or undefined when it came directly (or not from this downloader). */
  proxyUsed(response: FetchedResponse): string | undefined {
    return this.#proxyUsed.get(response);
  }

  /**
   * Fetches a request, following redirects unless told not to. Resolves with any HTTP status; rejects with a
   * FetchError whose reason is `timeout`, `network`, `redirects`, `too_large`, `aborted`, `closed` or `bad_request`, or with a
   * RedirectRefused when `checkRedirect` turned a redirect down.
   */
  async fetch(request: Request, options: FetchOptions = {}): Promise<FetchedResponse> {
    if (this.#closed) throw new FetchError("closed", `downloader is closed; not fetching ${request.url}`);
    const { signal } = options;
    if (signal?.aborted) throw new FetchError("aborted", `fetch of ${request.url} aborted`, { cause: signal.reason });
    let seconds: number, limit: number, proxy: string | undefined;
    try {
      seconds = timeoutFor(request, this.#settingsOf(request.host));
      limit = bodyLimitFor(request, this.#settings);
      proxy = this.proxyFor(request, options.session);
    } catch (error) {
      // A bad value of the request's own (meta download_timeout: "soon") fails that request, once: sending it again
      // would fail the same way, so it is no network error to retry.
      if (!(error instanceof RangeError || error instanceof TypeError)) throw error;
      throw new FetchError("bad_request", error.message, { cause: error });
    }
    const controller = new AbortController();
    let timedOut = false;
    const deadline = this.#deadlines.add(seconds * 1000, () => {
      timedOut = true;
      controller.abort();
    });
    const unfollow = signal ? this.#follow(signal, controller) : undefined;
    const started = performance.now();
    const client = this.#clients.acquire(proxy);
    try {
      const response = await this.#exchange(request, client.client, controller.signal, limit, options);
      response.latency = (performance.now() - started) / 1000;
      if (proxy) this.#proxyUsed.set(response, proxy);
      return response;
    } catch (error) {
      if (signal?.aborted) throw new FetchError("aborted", `fetch of ${request.url} aborted`, { cause: error });
      if (timedOut) {
        throw new FetchError("timeout", `no complete response from ${request.url} within ${seconds} s`, {
          cause: error,
        });
      }
      if (error instanceof FetchError || error instanceof RedirectRefused) throw error;
      const why = describeNetworkFailure(error, request.url);
      throw new FetchError("network", `fetching ${request.url} failed: ${why}`, { cause: error });
    } finally {
      this.#deadlines.remove(deadline);
      unfollow?.();
      client.release();
    }
  }

  /**
   * Aborts `controller` when `signal` aborts, until the returned function is called. A signal shared by a whole
   * crawl gets one listener for all its requests, not one each: an EventTarget keeps its listeners in a list that
   * adding and removing one scans, and with 1,000 requests in flight that was 3% of a broad crawl's CPU.
   */
  #follow(signal: AbortSignal, controller: AbortController): () => void {
    let following = this.#following.get(signal);
    if (following === undefined) {
      const controllers = following = new Set<AbortController>();
      this.#following.set(signal, controllers);
      signal.addEventListener("abort", () => {
        for (const each of controllers) each.abort();
        controllers.clear();
      }, { once: true });
    }
    following.add(controller);
    return () => following.delete(controller);
  }

  /** How many HTTP clients (one per proxy in recent use, and direct) are open. */
  get openClients(): number {
    return this.#clients.size;
  }

  /** The connections its HTTP clients hold open now, and their entries per origin. */
  connections(): ConnectionCounts {
    return this.#clients.connections();
  }

  /** Closes every HTTP client; fetches after this fail with FetchError `closed`. */
  close(): void {
    this.#closed = true;
    this.#clients.close();
  }

  /** Sends the request and each redirect hop, and reads the final body. Errors are classified by the caller. */
  async #exchange(
    request: Request,
    client: HttpClient,
    signal: AbortSignal,
    limit: number,
    options: FetchOptions,
  ): Promise<FetchedResponse> {
    const origin = new URL(request.url);
    const follow = request.allowRedirects && request.meta.dont_redirect !== true;
    const session = options.session;
    const jar = session ? session.jar : this.#jar;
    const useJar = jar !== undefined && request.meta.dont_merge_cookies !== true;
    const ownHeaders = new HeaderList(request.headers);
    const redirects: string[] = [];
    const hops: RedirectHop[] = [];
    let url = origin;
    let method = request.method;
    let body = request.body;
    for (;;) {
      const headers = await this.#headersFor(request, origin, url, ownHeaders, useJar ? jar : undefined, session);
      const sentAt = Date.now();
      const response = await client.fetch(url, {
        method,
        headers,
        // fetch refuses a body on GET and HEAD; such a body has no meaning to a server anyway.
        body: method === "GET" || method === "HEAD" ? undefined : body,
        signal,
        http2: http2ModeOf(this.#settingsOf(url.hostname).http2),
      });
      if (useJar) await storeCookies(jar!, response.headers, url);
      const next = follow ? redirectTarget(response, url) : undefined;
      if (next) {
        // Read, not dropped: the archives keep each hop, and a redirect's body is a line of HTML at most.
        const hopBody = await readBody(response, limit, url.href);
        const hopHeaders = response.headers;
        hops.push({
          url: url.href,
          status: response.status,
          headers: hopHeaders,
          body: decodeBody(hopBody, hopHeaders, limit, url.href, response.asSent),
          sent: { method, headers, body: method === "GET" || method === "HEAD" ? undefined : body },
          at: sentAt,
          ...(response.protocol !== undefined ? { protocol: response.protocol } : {}),
        });
        if (redirects.length >= this.#settings.maxRedirects) {
          throw new FetchError(
            "redirects",
            `${request.url}: more than ${this.#settings.maxRedirects} redirects (last to ${next.href})`,
          );
        }
        const refusal = await options.checkRedirect?.(next);
        if (refusal) throw new RedirectRefused(url.href, next.href, refusal);
        redirects.push(url.href);
        this.#log.debug("redirect", { status: response.status, from: url.href, to: next.href });
        const toGet = (response.status === 303 && method !== "HEAD") ||
          ((response.status === 301 || response.status === 302) && method === "POST");
        if (toGet) {
          method = "GET";
          body = undefined;
          for (const name of BODY_HEADERS) ownHeaders.delete(name);
        }
        if (next.hostname !== url.hostname) {
          // The request's own secrets were meant for the host it named, not for wherever it is sent on to.
          ownHeaders.delete("authorization");
          ownHeaders.delete("cookie");
        }
        url = next;
        continue;
      }
      try {
        checkContentLength(response.headers, limit, url.href);
      } catch (error) {
        await response.cancel();
        throw error;
      }
      const raw = await readBody(response, limit, url.href);
      const responseHeaders = response.headers;
      return {
        url: url.href,
        status: response.status,
        headers: responseHeaders,
        body: decodeBody(raw, responseHeaders, limit, url.href, response.asSent),
        request,
        redirects,
        latency: 0,
        source: "network",
        sent: { method, headers },
        ...(response.protocol !== undefined ? { protocol: response.protocol } : {}),
        ...(hops.length > 0 ? { hops } : {}),
      };
    }
  }

  /**
   * Headers for one hop: defaults < the session's < user agent < the request's own, then credentials and cookies
   * (from `jar`, when given) if not given.
   */
  async #headersFor(
    request: Request,
    origin: URL,
    url: URL,
    own: Headers,
    jar: CookieJar | undefined,
    session: FetchSession | undefined,
  ): Promise<Headers> {
    const headers = new HeaderList({ "accept-encoding": ACCEPT_ENCODING });
    // The hop's own host decides: a redirect to another host takes that host's headers and user agent.
    const { defaultHeaders, userAgent } = this.#settingsOf(url.hostname);
    for (const [name, value] of Object.entries(defaultHeaders)) headers.set(name, value);
    if (session) { for (const [name, value] of Object.entries(session.headers)) headers.set(name, value); }
    const agent = session?.userAgent ?? userAgent;
    if (agent) headers.set("user-agent", agent);
    own.forEach((value, name) => headers.set(name, value));
    if (!headers.has("authorization")) {
      const credentials = credentialsFor(request, origin, url, this.#settings.httpAuth);
      if (credentials) headers.set("authorization", basicAuthorization(credentials));
    }
    const everStored = session ? session.cookieStore.everStored : this.#cookieStore.everStored;
    if (jar && everStored && !headers.has("cookie")) {
      const cookie = await jar.getCookieString(url.href);
      if (cookie) headers.set("cookie", cookie);
    }
    return headers;
  }
}

async function storeCookies(jar: CookieJar, headers: Headers, url: URL): Promise<void> {
  for (const line of headers.getSetCookie()) {
    // A malformed or foreign-domain cookie is the server's mistake, not a reason to fail the page.
    await jar.setCookie(line, url.href, { ignoreError: true });
  }
}

/** The `http2` setting as the client takes it (auto when unset: a downloader built with older settings). */
function http2ModeOf(value: string | undefined): Http2Mode {
  return value === "off" || value === "only" ? value : "auto";
}

/** Where a redirect response points, or undefined when it is not one that can be followed. */
function redirectTarget(response: HttpResponse, base: URL): URL | undefined {
  if (!REDIRECT_STATUSES.has(response.status)) return undefined;
  const location = response.headers.get("location");
  if (!location) return undefined;
  let target: URL;
  try {
    target = new URL(location, base);
  } catch {
    return undefined;
  }
  // A redirect to mailto:, ftp: and such cannot be fetched; the 3xx itself is the answer.
  return target.protocol === "http:" || target.protocol === "https:" ? target : undefined;
}

/**
 * Seconds for the whole response: the request's `timeout`, else meta `download_timeout`, else the setting. A
 * rendered page takes the same time for its whole render.
 */
export function timeoutFor(request: Request, settings: Pick<DownloaderSettings, "timeout">): number {
  const value = request.timeout ?? request.meta.download_timeout ?? settings.timeout;
  const seconds = typeof value === "string" ? Number(value) : value;
  if (typeof seconds !== "number" || !(seconds > 0)) {
    throw new RangeError(`timeout of ${request.url} must be a number of seconds above 0, not ${String(value)}`);
  }
  return seconds;
}

/** The body size limit: meta `download_maxsize` (as in Scrapy), else the `maxBodySize` setting. */
function bodyLimitFor(request: Request, settings: DownloaderSettings): number {
  const value = request.meta.download_maxsize ?? settings.maxBodySize;
  if (typeof value !== "number" || !(value > 0)) {
    throw new RangeError(`download_maxsize of ${request.url} must be a number of bytes above 0`);
  }
  return value;
}
