/**
 * Which page a piece of code works for, carried along its awaits, timers and promise callbacks (AsyncLocalStorage).
 * An error nothing caught (a callback's promise left without `await`, a throw in its timer) can then be reported
 * with the spider and the URL it came from, though it surfaces long after the callback returned.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** The page code is running for, and the crawl it belongs to. */
export interface PageScope {
  /** The crawl the page is part of (compared by identity, so two crawls in one process tell theirs apart). */
  readonly owner: object;
  readonly spider: string;
  readonly url: string;
}

// One storage for the module: it is only the key under which each async context keeps its own scope, and holds
// nothing itself, so two crawls still share no state through it.
const scopes = new AsyncLocalStorage<PageScope>();

/** Runs `body` (and everything it starts, however late) as work for `scope`'s page. */
export function inPage<T>(scope: PageScope, body: () => T): T {
  return scopes.run(scope, body);
}

/** The page the running code works for, if it is known here. */
export function currentPage(): PageScope | undefined {
  return scopes.getStore();
}
