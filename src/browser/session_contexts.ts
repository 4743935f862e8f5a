/**
 * Sessions (the `sessions` setting) in the browser: each session renders in a browser context of its own (see
 * TabPool.acquire), so its cookies, storage and cache are its own, and its tabs send its user agent and headers. A
 * retired session's contexts are closed once none of its tabs is rendering: a page still on its way in it ends
 * normally rather than with a closed browser under it.
 */
import type { FetchSession } from "../fetch/fetch_session.ts";
import type { Tab } from "./pool.ts";

/** Which sessions have tabs rendering now, and which of them were retired meanwhile. */
export class SessionContexts {
  readonly #rendering = new Map<string, number>();
  readonly #retired = new Set<string>();
  readonly #close: (id: string) => Promise<void>;
  /** What each tab was last dressed as (a session's headers can change between two pages). */
  readonly #dressed = new WeakMap<Tab, string>();

  /** `close` closes a session's contexts (TabPool.closeSession). */
  constructor(close: (id: string) => Promise<void>) {
    this.#close = close;
  }

  /** A tab of the session starts rendering. */
  begin(id: string): void {
    this.#rendering.set(id, (this.#rendering.get(id) ?? 0) + 1);
  }

  /** A tab of the session is given back: the last one of a retired session closes its contexts. */
  async end(id: string): Promise<void> {
    const left = (this.#rendering.get(id) ?? 1) - 1;
    if (left > 0) {
      this.#rendering.set(id, left);
      return;
    }
    this.#rendering.delete(id);
    // Also a page that took the session just before it was retired and only then opened a tab (and so a context).
    if (this.#retired.has(id)) await this.#close(id);
  }

  /** The session was retired: its contexts close now, or when its last tab is given back. */
  retire(id: string): Promise<void> {
    this.#retired.add(id);
    return this.#rendering.has(id) ? Promise.resolve() : this.#close(id);
  }

  /**
   * Gives a tab the session's user agent and headers (over the crawl's `extraHeaders`), when it does not have them
   * yet: a tab belongs to one session's context, so this is once per tab unless the session's headers change.
   */
  async dress(
    tab: Tab,
    session: FetchSession,
    crawl: { userAgent: string | null; extraHeaders: Record<string, string> },
  ) {
    const headers = { ...crawl.extraHeaders, ...session.headers };
    const look = JSON.stringify([session.userAgent, headers]);
    if (this.#dressed.get(tab) === look) return;
    const userAgent = session.userAgent ?? crawl.userAgent;
    if (userAgent) await tab.page.setUserAgent(userAgent);
    await tab.page.setExtraHTTPHeaders(headers);
    this.#dressed.set(tab, look);
  }
}
