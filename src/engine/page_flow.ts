/**
 * One leased request, from the queue to finished: middlewares, robots.txt, the download, retries, the callback,
 * pipelines, the feeds, and last the frontier's `finish` with the requests the page yielded. A page is finished
 * only after its items are written, so whatever a frontier counts as done is in the files. The finish itself is
 * handed to the crawl (ctx.finish), which waits for it apart from the page.
 */
import { BlockedError, FetchError, HttpStatusError } from "../errors.ts";
import { blockReason } from "../fetch/blocks.ts";
import { maskUrl } from "../log.ts";
import { type RedirectRefusal, RedirectRefused } from "../fetch/downloader.ts";
import type { FetchedResponse } from "../spider/response.ts";
import { parseRetryAfter, retryDelay, retryReason, retryTimes } from "../fetch/retry.ts";
import type { Lease } from "../queue/frontier.ts";
import { blockCallback, drainCallback, normaliseResult, type OutputTaker, runErrback } from "../spider/callbacks.ts";
import { Page, RELEASE_DERIVED } from "../spider/page.ts";
import { Request } from "../spider/request.ts";
import type { Item } from "../spider/types.ts";
import type { CrawlContext } from "./context.ts";
import { hrefParts } from "../spider/href_parts.ts";
import { crawledLine } from "./crawled_line.ts";
import type { CrawlSession } from "./session_pool.ts";
import { keepSession, scoreSession, takeSession } from "./session_flow.ts";
import type { AutoPlan } from "./render_auto.ts";
import { comparedOutputs } from "./render_compare.ts";

/** A leased request on its way through this process. */
export interface Pending {
  lease: Lease;
  /** The request as the middlewares left it (the lease keeps the original). */
  request: Request;
  /** Epoch ms before which it must not start (retry backoff). */
  notBefore: number;
  /** Set once request middlewares and robots.txt have let it through. */
  admitted: boolean;
  /** The session it is fetched in, when the crawl has sessions. */
  session?: CrawlSession;
  /** How a `render: "auto"` request is fetched this time (planned at each download); undefined for any other. */
  auto?: AutoPlan;
}

export type Outcome =
  | { kind: "finished" }
  /**
   * Tried again after `delay` seconds, through the queue (see retryRequest), with `meta` changed as given when the
   * retry changes it (another proxy).
   */
  | { kind: "retry"; delay: number; meta?: Record<string, unknown> }
  | { kind: "abandoned" };

const FINISHED: Outcome = { kind: "finished" };
const ABANDONED: Outcome = { kind: "abandoned" };

function statusHandled(ctx: CrawlContext, request: Request, status: number): boolean {
  if (status >= 200 && status < 300) return true;
  const meta = request.meta;
  if (meta.handle_httpstatus_all === true) return true;
  const list = meta.handle_httpstatus_list ?? (ctx.spider as { handleHttpStatusList?: unknown }).handleHttpStatusList;
  return Array.isArray(list) && list.includes(status);
}

/** Middlewares and robots.txt, once per request: returns false when the request was dropped (and finished). */
async function admit(ctx: CrawlContext, pending: Pending): Promise<FetchedResponse | boolean> {
  let request = pending.request;
  for (const middleware of ctx.spider.middlewares) {
    if (!("processRequest" in middleware)) continue;
    const result = await middleware.processRequest(request, ctx.spider);
    if (result === null) {
      ctx.stats.dropped("middleware");
      ctx.finish(pending.lease, []);
      return false;
    }
    if (result instanceof Request) request = result;
    else if (result !== undefined) return result; // answered by the middleware
  }
  pending.request = request;
  if (ctx.robots && request.meta.dont_obey_robotstxt !== true) {
    const verdict = await ctx.robots.check(request.url, hrefParts(request.url));
    if (verdict.crawlDelay !== undefined) ctx.slots.setFloor(request.host, verdict.crawlDelay);
    if (!verdict.allowed) {
      ctx.stats.dropped("robots");
      ctx.log.debug(`robots.txt forbids ${request.url}`);
      ctx.finish(pending.lease, []);
      return false;
    }
  }
  pending.admitted = true;
  return true;
}

async function download(ctx: CrawlContext, pending: Pending): Promise<FetchedResponse | FetchError | RedirectRefused> {
  let request = pending.request;
  const session = pending.session;
  const planned = ctx.renderAuto.plan(request, ctx.signal);
  const auto = pending.auto = planned instanceof Promise ? await planned : planned;
  if (auto?.render) {
    // A page to compare goes to the browser as render: "auto", which keeps its document (see render_compare.ts).
    const render = auto.compare ? "auto" : true;
    if (request.render !== render) request = request.replace({ render });
  }
  try {
    const fetcher = await ctx.fetchers.fetcherFor(request, auto?.render);
    return await fetcher.fetch(request, {
      signal: ctx.signal,
      checkRedirect: (target) => checkRedirect(ctx, request, target),
      session,
    });
  } catch (error) {
    // Anything else (an archive that cannot be written) is a failure of the crawl, not of this request.
    if (error instanceof FetchError || error instanceof RedirectRefused) return error;
    throw error;
  }
}

/**
 * Where a redirect may lead: the rules a link must pass to be fetched (allowedDomains, robots.txt) apply to a
 * redirect's target too, or a redirect would take the crawl off the site or past a disallow. The rest of admission
 * (depth, traps, max_pages_per_domain) counts requests, and a redirect is the same request.
 */
export async function checkRedirect(
  ctx: CrawlContext,
  request: Request,
  target: URL,
): Promise<RedirectRefusal | undefined> {
  if (!ctx.admission.hostAllowed(target.hostname)) return { reason: "offsite", detail: target.hostname };
  if (ctx.robots && request.meta.dont_obey_robotstxt !== true) {
    const verdict = await ctx.robots.check(target);
    if (!verdict.allowed) return { reason: "robots", detail: target.href };
  }
  return undefined;
}

/**
 * Runs one pending request to its outcome. The caller has started the request's slot. A `render: "auto"` page's
 * plan is released at the end, however it ended (see AutoPlan.release).
 */
export function processPending(ctx: CrawlContext, pending: Pending): Promise<Outcome> {
  const outcome = runPending(ctx, pending);
  return outcome.finally(() => pending.auto?.release());
}

async function runPending(ctx: CrawlContext, pending: Pending): Promise<Outcome> {
  const host = pending.request.host;
  let outcome: FetchedResponse | FetchError | RedirectRefused;
  let slotOpen = true;
  const closeSlot = (latency: number, status: number, retryAfter?: number) => {
    if (slotOpen) ctx.slots.finish(host, { latency, status, retryAfter });
    slotOpen = false;
  };
  try {
    if (!pending.admitted) {
      const admitted = await admit(ctx, pending);
      if (admitted === false) return FINISHED;
      if (admitted !== true) return await handleResponse(ctx, pending, admitted);
    }
    if (ctx.signal.aborted) return ABANDONED;
    if (ctx.sessions) {
      ({ session: pending.session, request: pending.request } = takeSession(ctx.sessions, pending.request));
    }
    outcome = await download(ctx, pending);
    if (ctx.signal.aborted) return ABANDONED;
    if (outcome instanceof FetchError || outcome instanceof RedirectRefused) closeSlot(0, 0);
    else {
      closeSlot(outcome.latency, outcome.status, retryAfterSeconds(outcome));
      ctx.stats.status(outcome.status);
      ctx.stats.inc("bytes", outcome.body.byteLength);
      if (outcome.source === "browser") ctx.stats.inc("browser.pages");
      if (outcome.protocol !== undefined) ctx.stats.inc(`downloader/protocol/${outcome.protocol}`);
      // Checked here rather than left to the logger, so a crawl at info level builds no line per page.
      if (ctx.settings.logLevel === "debug") ctx.log.debug(crawledLine(pending.request, outcome));
    }
  } finally {
    closeSlot(0, 0);
  }
  if (outcome instanceof RedirectRefused) {
    // Like a link the crawl's rules turn down: dropped, counted, the request finished with nothing.
    ctx.stats.dropped(outcome.refusal.reason);
    ctx.log.debug(outcome.message);
    ctx.finish(pending.lease, []);
    return FINISHED;
  }
  if (!(outcome instanceof FetchError)) {
    const blocked = blockReason(outcome, pending.request.method);
    if (blocked) return await handleBlocked(ctx, pending, outcome, blocked);
  }
  if (pending.session) scoreSession(pending.session, outcome, ctx.settings);
  const reason = retryReason(ctx.settings, pending.request, outcome);
  if (reason) {
    const attempt = retryTimes(pending.request) + 1;
    ctx.stats.inc("retries");
    ctx.log.debug(`retrying ${pending.request.url} (${reason}), attempt ${attempt}`);
    return {
      kind: "retry",
      delay: retryDelay(ctx.settings, attempt, outcome instanceof FetchError ? undefined : outcome),
      // The same session again, unless the failure retired it (then the retry takes another).
      meta: pending.session ? { session: pending.session.id } : undefined,
    };
  }
  if (outcome instanceof FetchError) return await handleFailure(ctx, pending, outcome);
  // The promise itself, not awaited: a suspended async function keeps all its variables, and this one's `outcome`
  // (the response and its body) would stay alive until the page's items are written (see finishWith).
  return handleResponse(ctx, pending, outcome);
}

/** A 429's or 503's Retry-After in seconds, for the host's slot. */
function retryAfterSeconds(response: FetchedResponse): number | undefined {
  if (response.status !== 429 && response.status !== 503) return undefined;
  return parseRetryAfter(response.headers.get("retry-after"));
}

/**
 * A response that looks blocked (C10): to the spider's `onBlock` when it has one, as a page; else tried again
 * through another of `proxies` (one the request has not been blocked on, while retries last); else to the errback
 * as a BlockedError, or logged and counted as an error.
 */
async function handleBlocked(
  ctx: CrawlContext,
  pending: Pending,
  response: FetchedResponse,
  reason: string,
): Promise<Outcome> {
  const request = pending.request;
  ctx.stats.inc("blocked");
  // The site has marked the session, whoever handles the page: its cookies, proxy and browser context go with it.
  const session = pending.session;
  if (session) ctx.sessions!.retire(session, "blocked");
  const onBlock = blockCallback(ctx.spider);
  if (onBlock) {
    ctx.stats.inc("pages");
    const page = pagedIn(response, pending);
    return await finishWith(
      ctx,
      pending,
      normaliseResult(onBlock(page, request.cbKwargs), "onBlock"),
      undefined,
      page.depth,
    );
  }
  const retriesLeft = retryTimes(request) < ctx.settings.retries && request.meta.dont_retry !== true;
  if (session && retriesLeft) {
    ctx.stats.inc("retries");
    ctx.log.info(`${request.url} looks blocked in session ${session.id} (${reason}); retired, trying another`);
    return { kind: "retry", delay: 0, meta: { session: null } };
  }
  const used = ctx.downloader.proxyUsed(response);
  if (!session && used !== undefined && retriesLeft) {
    const tried = Array.isArray(request.meta.blocked_proxies) ? request.meta.blocked_proxies.map(String) : [];
    const next = ctx.downloader.nextProxy(request, [...tried, used]);
    if (next !== undefined) {
      ctx.stats.inc("retries");
      ctx.log.info(
        `${request.url} looks blocked through ${maskUrl(used)} (${reason}); trying ${maskUrl(next)}`,
      );
      return { kind: "retry", delay: 0, meta: { proxy: next, blocked_proxies: [...tried, used] } };
    }
  }
  const error = new BlockedError(response, reason);
  ctx.stats.inc("errors");
  ctx.stats.inc("errors_blocked");
  if (request.errback === undefined) {
    ctx.log.warning(error.message);
    return await finishWith(ctx, pending, undefined, []);
  }
  return await finishWith(ctx, pending, runErrback(ctx.spider, request, error), undefined);
}

/** What a callback worker sent back, as the stream of outputs an in-process callback gives. */
async function* fromWorker(outputs: Promise<Array<Item | Request>>): AsyncGenerator<Item | Request> {
  yield* await outputs;
}

async function handleFailure(ctx: CrawlContext, pending: Pending, error: Error): Promise<Outcome> {
  ctx.stats.inc("errors");
  const kind = error instanceof FetchError ? error.reason : "error";
  ctx.stats.inc(`errors_${kind}`);
  ctx.log.warning(`failed ${pending.request.url}: ${error.message}`);
  return await finishWith(ctx, pending, runErrback(ctx.spider, pending.request, error), undefined);
}

async function handleResponse(ctx: CrawlContext, pending: Pending, response: FetchedResponse): Promise<Outcome> {
  for (const middleware of ctx.spider.middlewares) {
    if (!("processResponse" in middleware)) continue;
    const result = await middleware.processResponse(response, ctx.spider);
    if (result instanceof Request) {
      ctx.stats.inc("pages");
      return await finishWith(ctx, pending, undefined, [result]);
    }
    response = result;
  }
  ctx.stats.inc("pages");
  if (!statusHandled(ctx, pending.request, response.status)) {
    ctx.stats.inc("responses_ignored");
    if (response.status >= 500 || response.status === 429) {
      // A server error that outlived its retries is a failed request (it counts towards max_errors); a 404 is not.
      ctx.stats.inc("errors");
      ctx.stats.inc("errors_http");
    }
    const error = new HttpStatusError(response);
    if (pending.request.errback === undefined) {
      ctx.log.info(`ignoring response ${response.status} for ${response.url}`);
      return await finishWith(ctx, pending, undefined, []);
    }
    return await finishWith(ctx, pending, runErrback(ctx.spider, pending.request, error), undefined);
  }
  const auto = pending.auto;
  const outputs = auto?.compare
    ? comparedOutputs(ctx, auto, pending.request, response)
    : ctx.workers
    ? fromWorker(ctx.workers.run(pending.request, response))
    : drainPage(ctx, pagedIn(response, pending));
  // Not awaited, so that this frame does not hold the response while the items are written (see processPending).
  return finishWith(ctx, pending, outputs, undefined, pending.request.depth);
}

/** The page of a response, with the session it was fetched in. */
function pagedIn(response: FetchedResponse, pending: Pending): Page {
  const page = new Page(response, pending.request);
  page.session = pending.session;
  return page;
}

/**
 * The page's callback, drained; then the page lets go of what it derived from its body (see RELEASE_DERIVED): at
 * once when the callback was synchronous, before any other page's callback runs (see drainCallback).
 */
function drainPage(ctx: CrawlContext, page: Page): (take: OutputTaker) => boolean | Promise<boolean> {
  return (take) => {
    let drained: boolean | Promise<boolean>;
    try {
      drained = drainCallback(ctx.spider, page.request, page, take);
    } catch (error) {
      page[RELEASE_DERIVED]();
      throw error;
    }
    if (typeof drained === "boolean") {
      page[RELEASE_DERIVED]();
      return drained;
    }
    return drained.finally(() => page[RELEASE_DERIVED]());
  };
}

/**
 * What becomes of a request a page at `depth` yielded: the request to queue (one level deeper than the page), or
 * undefined when it is dropped. A link this process queued lately is dropped first, at the cost of a lookup: on a
 * site with menus and "related" boxes most links are, and the frontier would drop them anyway. With deltafetch on,
 * every link takes the whole way, so that what deltafetch drops is counted as before.
 */
export function acceptYielded(ctx: CrawlContext, output: Request, depth: number): Request | undefined {
  const next = output.depth === depth + 1 ? output : output.replace({ depth: depth + 1 });
  const deltafetch = ctx.deltafetch;
  if (deltafetch === undefined && ctx.admission.queuedLately(next)) return undefined;
  const refusal = ctx.admission.checkYielded(next);
  if (refusal) {
    ctx.stats.dropped(refusal.reason);
    ctx.log.debug(`dropped ${next.url} (${refusal.reason}: ${refusal.detail})`);
    return undefined;
  }
  if (deltafetch?.has(next)) {
    // Its page yielded items in an earlier run (or earlier in this one): deltafetch skips it.
    ctx.stats.dropped("deltafetch");
    ctx.log.debug(`dropped ${next.url} (deltafetch: scraped before)`);
    return undefined;
  }
  if (deltafetch === undefined) {
    const key = ctx.admission.noteQueued(next);
    // Callback workers drop a repeat of it before it crosses back (see WorkerPool.noteQueued).
    if (key !== undefined) ctx.workers?.noteQueued(key);
  }
  return next;
}

/** Drains a callback's output, writes its items, then finishes the lease with the requests it yielded. */
async function finishWith(
  ctx: CrawlContext,
  pending: Pending,
  outputs: AsyncIterable<Item | Request> | ((take: OutputTaker) => boolean | Promise<boolean>) | undefined,
  extra: Request[] | undefined,
  pageDepth?: number,
): Promise<Outcome> {
  // No default values among the parameters: with them, V8 copies the parameters into variables of their own, and
  // `outputs = undefined` below would leave the argument itself (and the page) held by this suspended function.
  const depth = pageDepth ?? pending.request.depth;
  const items: Item[] = [];
  const requests: Request[] = [...(extra ?? [])];
  if (outputs) {
    let abandoned = false;
    const take: OutputTaker = (output) => {
      if (ctx.signal.aborted) return !(abandoned = true);
      if (output instanceof Request) {
        const next = acceptYielded(ctx, keepSession(output, pending.session), depth);
        if (next) requests.push(next);
      } else items.push(output);
      return true;
    };
    try {
      if (typeof outputs === "function") await outputs(take);
      else for await (const output of outputs) if (!take(output)) break;
      if (abandoned) return ABANDONED;
    } catch (error) {
      if (ctx.signal.aborted) return ABANDONED;
      ctx.stats.inc("errors");
      ctx.stats.inc("errors_callback");
      ctx.log.error(`callback failed on ${pending.request.url}: ${(error as Error)?.message ?? error}`);
      ctx.log.debug((error as Error)?.stack ?? String(error));
    }
  }
  // Drained: the page (its response, headers and body) is no longer needed, and this suspended function would keep
  // it through the waits below, for the items to be written. At 64 requests at once most pages in flight are
  // here, not downloading: a heap snapshot found 55 of 64 held this way.
  outputs = undefined;
  if (ctx.signal.aborted) return ABANDONED;
  const kept = await ctx.pipelines.process(items, pending.request.url);
  if (ctx.signal.aborted) return ABANDONED;
  if (kept.length > 0) {
    await ctx.sink.write(kept);
    ctx.stats.inc("items", kept.length);
  }
  // Remembered once its items are written: a crawl that dies before that fetches the page again next time.
  if (items.length > 0) ctx.deltafetch?.add(pending.request);
  ctx.finish(pending.lease, requests);
  return FINISHED;
}
