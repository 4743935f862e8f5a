/**
 * Crawl-wide stats in the shared queue: what each process's heartbeat writes about itself (its host, pid and running
 * totals, one JSON value in P:stats), and how the STATUS script's answer is read back into the crawl's totals and one
 * entry per live process. The layout is in docs/design/distributed.md.
 */
import type { CrawlTotals, FrontierStatus, LiveProcess, ProcessTotals } from "./frontier.ts";

/** What a heartbeat writes about its process: the value of its field in P:stats. */
export function heartbeatReport(host: string, pid: number, totals: ProcessTotals, pagesPerSecond: number): string {
  const { pages, items, errors } = totals;
  return JSON.stringify({ host, pid, pages, items, errors, pages_per_second: Math.round(pagesPerSecond * 100) / 100 });
}

/** A count from a report: a finite number >= 0, else 0 (a value written by hand). */
function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}

/**
 * A live process from its id, its last heartbeat (ms) and its report ('' when it wrote none: a process of an
 * earlier version, or a value that is not a report, which is shown as one without totals rather than fail status).
 */
function liveProcess(id: string, beatMs: number, nowMs: number, report: string): LiveProcess {
  let parsed: Record<string, unknown> | undefined;
  try {
    const value = report === "" ? undefined : JSON.parse(report);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) parsed = value;
  } catch {
    parsed = undefined;
  }
  const colon = id.lastIndexOf(":");
  const host = typeof parsed?.host === "string" ? parsed.host : colon > 0 ? id.slice(0, colon) : id;
  const pid = typeof parsed?.pid === "number" && Number.isInteger(parsed.pid) ? parsed.pid : null;
  return {
    id,
    host,
    pid,
    lastHeartbeat: new Date(beatMs),
    heartbeatAgeSeconds: Math.max(0, nowMs - beatMs) / 1000,
    totals: parsed
      ? {
        pages: count(parsed.pages),
        items: count(parsed.items),
        errors: count(parsed.errors),
        pagesPerSecond: count(parsed.pages_per_second),
      }
      : null,
  };
}

/** The sum of the live processes' totals. */
export function crawlTotals(live: readonly LiveProcess[]): CrawlTotals {
  const sum: CrawlTotals = { pages: 0, items: 0, errors: 0, pagesPerSecond: 0 };
  for (const { totals } of live) {
    if (!totals) continue;
    sum.pages += totals.pages;
    sum.items += totals.items;
    sum.errors += totals.errors;
    sum.pagesPerSecond += totals.pagesPerSecond;
  }
  sum.pagesPerSecond = Math.round(sum.pagesPerSecond * 100) / 100;
  return sum;
}

/**
 * The STATUS script's answer: waiting, held, processes, seen, queued; asked with processes, Redis's time (ms) and
 * then id, last heartbeat, report for each live process.
 */
export function readStatus(reply: unknown[]): FrontierStatus {
  const [waiting, held, processes, seen, queued] = reply.slice(0, 5).map(Number);
  const status: FrontierStatus = { waiting, held, processes, seen, queued };
  if (reply.length <= 5) return status;
  const now = Number(reply[5]);
  const live: LiveProcess[] = [];
  for (let i = 6; i + 2 < reply.length; i += 3) {
    live.push(liveProcess(String(reply[i]), Number(reply[i + 1]), now, String(reply[i + 2] ?? "")));
  }
  status.live = live;
  status.crawl = crawlTotals(live);
  return status;
}
