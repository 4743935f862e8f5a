/**
 * What the downloader needs of a session (the `sessions` setting) to fetch in its name: its own cookie jar, proxy,
 * user agent and headers in place of the crawl's. The engine's session pool (src/engine/session_pool.ts) makes them.
 */
import type { CookieJar } from "tough-cookie";
import type { CrawlCookieStore } from "./cookie_store.ts";

export interface FetchSession {
  readonly id: string;
  /** Its cookie jar; undefined when the `cookies` setting is off. */
  readonly jar: CookieJar | undefined;
  /** The jar's store, which knows whether the jar was ever given a cookie. */
  readonly cookieStore: CrawlCookieStore;
  /** The proxy its requests go through (meta `proxy` still wins); undefined: the crawl's rotation, if any. */
  readonly proxy: string | undefined;
  /** Its user agent; null: the host's or the crawl's. */
  readonly userAgent: string | null;
  /** Headers over the host's or crawl's default headers. */
  readonly headers: Readonly<Record<string, string>>;
}
