/**
 * Where sessions (src/engine/session_pool.ts) meet a request's way through the crawl: the pool the settings ask for,
 * a session taken for each request, its score after the answer, and the requests a page yields keeping it. Kept
 * apart from page_flow.ts so that a crawl without sessions reads one `undefined` per request and nothing more.
 */
import { FetchError } from "../errors.ts";
import type { SettingValues } from "../settings/table.ts";
import type { Request } from "../spider/request.ts";
import type { FetchedResponse } from "../spider/response.ts";
import type { Logger } from "../spider/types.ts";
import { type CrawlSession, isSessionPoolState, SessionPool, type SessionPoolState } from "./session_pool.ts";
import type { Stats } from "./stats.ts";

/** Failures that count against a session: the site or its proxy did not answer it. */
const BAD_FAILURES = new Set(["network", "timeout"]);

/** The crawl's session pool when `sessions` is above 0, carrying on from what a checkpoint kept. */
export function openSessionPool(
  settings: SettingValues,
  stats: Stats,
  log: Logger,
  kept: unknown,
): SessionPool | undefined {
  if (settings.sessions <= 0) return undefined;
  let saved: SessionPoolState | undefined;
  if (isSessionPoolState(kept)) saved = kept;
  else if (kept !== undefined) {
    log.warning("the checkpoint's sessions are not in a shape this version reads: starting with new sessions");
  }
  return new SessionPool({
    size: settings.sessions,
    maxUsage: settings.sessionMaxUsage,
    maxErrorScore: settings.sessionMaxErrorScore,
    userAgents: settings.sessionUserAgents,
    proxies: settings.proxies,
    cookies: settings.cookies,
    stats,
    log,
  }, saved);
}

/**
 * A session for `request` (see SessionPool.take), and the request with meta `session` naming it, so that a callback
 * reads which one it got and a retry goes back with it.
 */
export function takeSession(pool: SessionPool, request: Request): { session: CrawlSession; request: Request } {
  const session = pool.take(request.meta.session);
  if (request.meta.session === session.id) return { session, request };
  return { session, request: request.replace({ meta: { ...request.meta, session: session.id } }) };
}

/**
 * Scores a session by how its request went: a network failure, a timeout, or a status the crawl retries (a 5xx, a
 * 429) counts against it; a 2xx for it. A blocked response is not scored here: it retires the session at once.
 */
export function scoreSession(
  session: CrawlSession,
  outcome: FetchedResponse | FetchError,
  settings: Pick<SettingValues, "retryHttpCodes">,
): void {
  if (outcome instanceof FetchError) {
    if (BAD_FAILURES.has(outcome.reason)) session.markBad();
  } else if (outcome.status >= 200 && outcome.status < 300) session.markGood();
  else if (outcome.status >= 500 || settings.retryHttpCodes.includes(outcome.status)) session.markBad();
}

/** A request a page yielded, with the page's session unless it names one itself (or the session was retired). */
export function keepSession(output: Request, session: CrawlSession | undefined): Request {
  if (session === undefined || session.retired || Object.hasOwn(output.meta, "session")) return output;
  return output.replace({ meta: { ...output.meta, session: session.id } });
}
