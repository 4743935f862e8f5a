/**
 * The end of a crawl that fetched nothing at all: every request failed without an answer (a refused port, a name
 * that does not resolve, a certificate that does not check out) or was dropped before it was sent (a start URL
 * that is not http(s), allowedDomains that match no host, robots.txt). Such a crawl used to exit 0 and say "items
 * written", so a script running it could not tell it from a crawl of an empty site. `netweir crawl` now ends it with
 * status 1 and this one line, which names what happened; the warning logged for each failed request says why.
 *
 * A crawl that sent no request and dropped none (a process of a shared crawl that found the queue empty, a
 * checkpoint with nothing left) did nothing wrong, and one that got any HTTP answer, even a 404, fetched something.
 */
import type { StatsRecord } from "../engine/stats.ts";

/** Words for the reasons a request is dropped (the stats' `dropped` keys) that are not plain enough alone. */
const DROPPED_WHY: Readonly<Record<string, string>> = {
  scheme: "not http:// or https://",
  offsite: "outside allowedDomains",
  robots: "disallowed by robots.txt",
  depth: "deeper than max_depth",
  trap: "looked like a crawler trap",
  middleware: "dropped by a middleware",
};

function count(stats: StatsRecord, name: string): number {
  const value = stats[name];
  return typeof value === "number" ? value : 0;
}

/** "network: 2, timeout: 1" from the `errors_KIND` counters. */
function failureKinds(stats: StatsRecord): string {
  return Object.keys(stats)
    .filter((name) => name.startsWith("errors_") && count(stats, name) > 0)
    .map((name) => `${name.slice("errors_".length)}: ${count(stats, name)}`)
    .join(", ");
}

/** "offsite: 1, outside allowedDomains; scheme: 2, not http:// or https://" from the `dropped` record. */
function droppedKinds(dropped: Record<string, number>): string {
  return Object.entries(dropped)
    .filter(([, n]) => n > 0)
    .map(([reason, n]) => `${reason}: ${n}${DROPPED_WHY[reason] ? `, ${DROPPED_WHY[reason]}` : ""}`)
    .join("; ");
}

/**
 * The line saying that nothing was fetched and why, from the crawl's final stats; undefined when some page was
 * fetched, or when nothing was tried.
 */
export function nothingFetched(stats: StatsRecord): string | undefined {
  if (count(stats, "pages") > 0) return undefined;
  const failed = count(stats, "errors");
  const droppedRecord = (typeof stats.dropped === "object" && stats.dropped !== null ? stats.dropped : {}) as Record<
    string,
    number
  >;
  const dropped = Object.values(droppedRecord).reduce((sum, n) => sum + (typeof n === "number" ? n : 0), 0);
  if (failed === 0 && dropped === 0) return undefined;
  const kinds = failureKinds(stats);
  const failures = kinds ? `failed (${kinds})` : "failed";
  const drops = `dropped (${droppedKinds(droppedRecord)})`;
  let what: string;
  if (dropped === 0) what = `every request ${failures}`;
  else if (failed === 0) what = `every request was ${drops}`;
  else what = `${failed} ${failed === 1 ? "request" : "requests"} ${failures} and ${dropped} ${drops}`;
  const see = failed > 0 ? "; each failure is logged as a warning" : "";
  return `nothing was fetched: ${what}${see}`;
}
