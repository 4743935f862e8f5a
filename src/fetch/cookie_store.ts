/**
 * The crawl's cookie store: tough-cookie's memory store, which also knows whether a cookie was ever put in it. Until
 * one is, no request has a cookie to send, and the downloader skips the jar's lookup (a public-suffix check, the
 * domain's and path's permutations and two promises on every request: 2 % of a crawl's CPU on the link shop, where
 * no page sets a cookie). Everything that fills the jar goes through putCookie: a Set-Cookie, a browser's cookies, a
 * jar restored from JSON.
 */
import { type Cookie, type ErrorCallback, MemoryCookieStore } from "tough-cookie";

export class CrawlCookieStore extends MemoryCookieStore {
  #everStored = false;

  /** Whether any cookie was ever stored (one since removed or expired still counts: the jar is then asked). */
  get everStored(): boolean {
    return this.#everStored;
  }

  override putCookie(cookie: Cookie): Promise<void>;
  override putCookie(cookie: Cookie, callback: ErrorCallback): void;
  override putCookie(cookie: Cookie, callback?: ErrorCallback): unknown {
    this.#everStored = true;
    return callback ? super.putCookie(cookie, callback) : super.putCookie(cookie);
  }
}
