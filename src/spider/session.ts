/**
 * A crawl session as a callback sees it: `page.session`, when the crawl runs with `sessions` above 0. Only the type
 * lives here (the spider layer knows nothing of the engine); the pool that makes sessions is src/engine/session_pool.ts.
 */

/** One identity of the crawl: its own cookies, proxy, user agent, headers and browser context. */
export interface Session {
  /** Its name, as meta `session` carries it: `s1`, `s2`, ... or a name a request chose. */
  readonly id: string;
  /** The user agent its requests send (null: the crawl's). */
  readonly userAgent: string | null;
  /** The proxy its requests go through, when the crawl has proxies. */
  readonly proxy: string | undefined;
  /** How many requests it has been taken for. */
  readonly usageCount: number;
  /** Its error score: up by 1 at each failed request, down by 0.5 at each good one; retired at the maximum. */
  readonly errorScore: number;
  /** Whether it has been retired (its requests from now on take another session). */
  readonly retired: boolean;
  /** Headers its requests send over the crawl's default headers (set with {@link setHeader}). */
  readonly headers: Readonly<Record<string, string>>;
  /** Sets a header its requests send from now on (a token a login gave it); null removes it. */
  setHeader(name: string, value: string | null): void;
  /** Counts a failure against it, as a network error would. */
  markBad(): void;
  /** Counts a success for it, as a good page would. */
  markGood(): void;
  /** Retires it: no request takes it again, and its cookies and browser context are dropped. */
  retire(): void;
}
