/**
 * Retry decisions for the engine, as pure functions: whether an outcome is worth another try, how long to wait
 * first, and the request that goes back to the queue for it. The count travels with the request, in its meta
 * `retry_times` as Scrapy keeps it, and so does the time the retry may start (meta `retry_at`): a request given back
 * to the queue (a stop, a checkpoint resumed) or reclaimed from a dead process carries on from its count instead of
 * starting over at 0.
 */
import { FetchError } from "../errors.ts";
import type { SettingValues } from "../settings/table.ts";
import type { Request } from "../spider/request.ts";
import type { FetchedResponse } from "../spider/response.ts";

/** The settings retry decisions read. */
export type RetrySettings = Pick<SettingValues, "retries" | "retryHttpCodes" | "retryBackoff">;

/**
 * Fetch failures worth trying again: the network, a timeout, a browser that crashed while rendering, and a browser
 * step that failed (a page that was slow to show its button). The others (too_large, redirects, aborted, a browser
 * that cannot be found, ...) would only fail again.
 */
const RETRIED_FAILURES = new Set(["network", "timeout", "browser", "browser_step"]);
/** Longest wait computed from the backoff. */
const MAX_BACKOFF = 60;
/** Longest wait a Retry-After header can ask for. */
const MAX_RETRY_AFTER = 300;

/** Times `request` has been retried so far (meta `retry_times`, set by {@link retryRequest}). */
export function retryTimes(request: Request): number {
  const times = request.meta.retry_times;
  return typeof times === "number" && times > 0 ? times : 0;
}

/**
 * Why `outcome` should be retried (`network`, `timeout`, `status_503`, ...), or undefined when it should not: it
 * succeeded, it would fail the same way again, meta `dont_retry` is set, or the request has used up its retries
 * (meta `max_retry_times`, else the `retries` setting). A status in meta `handle_httpstatus_list` is still retried:
 * that list says who handles the status once retries are over, not that it is final. `attempts` is how many retries
 * were made already (by default meta `retry_times`).
 */
export function retryReason(
  settings: RetrySettings,
  request: Request,
  outcome: FetchedResponse | FetchError,
  attempts: number = retryTimes(request),
): string | undefined {
  if (request.meta.dont_retry === true) return undefined;
  const maxTimes = typeof request.meta.max_retry_times === "number" ? request.meta.max_retry_times : settings.retries;
  if (attempts >= maxTimes) return undefined;
  if (outcome instanceof FetchError) return RETRIED_FAILURES.has(outcome.reason) ? outcome.reason : undefined;
  return settings.retryHttpCodes.includes(outcome.status) ? `status_${outcome.status}` : undefined;
}

/**
 * The request a retry queues: `request` with meta `retry_times` one more, meta `retry_at` the epoch milliseconds it
 * may start (left out when it may start at once), the `changes` given (another proxy), and `dontFilter`, since the
 * duplicate filter has seen it already (as Scrapy's retry does).
 */
export function retryRequest(
  request: Request,
  delaySeconds: number,
  changes: Record<string, unknown> = {},
  now: number = Date.now(),
): Request {
  const { retry_at: _, ...meta } = request.meta;
  const at = delaySeconds > 0 ? { retry_at: Math.round(now + delaySeconds * 1000) } : {};
  return request.replace({
    meta: { ...meta, ...changes, retry_times: retryTimes(request) + 1, ...at },
    dontFilter: true,
  });
}

/**
 * Epoch milliseconds before which `request` must not start: its meta `retry_at`, but never more than the longest
 * wait a retry asks for from `now` (a clock of another machine, or a value in the queue nobody checked, cannot hold a
 * request for longer), and 0 when it has none.
 */
export function retryNotBefore(request: Request, now: number = Date.now()): number {
  const at = request.meta.retry_at;
  if (typeof at !== "number" || !Number.isFinite(at)) return 0;
  return Math.min(at, now + MAX_RETRY_AFTER * 1000);
}

/**
 * Seconds to wait before retry number `attempt` (1 for the first): `retryBackoff * 2^(attempt-1)` give or take 20%
 * (so retries of many requests do not arrive together), at most 60 s; and never less than the response's
 * Retry-After, itself capped at 300 s.
 */
export function retryDelay(
  settings: RetrySettings,
  attempt: number,
  response?: FetchedResponse,
  random: () => number = Math.random,
  now: number = Date.now(),
): number {
  if (!Number.isInteger(attempt) || attempt < 1) {
    throw new RangeError(`retry attempt must be 1 or more, not ${attempt}`);
  }
  const jitter = 0.8 + 0.4 * random();
  const backoff = Math.min(settings.retryBackoff * 2 ** (attempt - 1) * jitter, MAX_BACKOFF);
  const asked = parseRetryAfter(response?.headers.get("retry-after"), now);
  return asked === undefined ? backoff : Math.max(backoff, Math.min(asked, MAX_RETRY_AFTER));
}

/**
 * A Retry-After value in seconds from `now` (milliseconds since the epoch): delay-seconds or an HTTP date (a date
 * in the past is 0). Undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  // Only full dates: Date.parse would also take "5" or "tomorrow-ish" strings in some runtimes.
  if (!/[a-z]{3},? .*\d{2}:\d{2}:\d{2}/i.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, (date - now) / 1000);
}
