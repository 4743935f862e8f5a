/**
 * The crawl-wide stats of `netweir queue status`: the lines it adds after the spec's five while processes are live,
 * and the JSON object of `--json` (its shape is documented in docs/distributed.md).
 */
import type { FrontierStatus, LiveProcess } from "../queue/frontier.ts";

/** A rate or an age as people read it: one decimal. */
function oneDecimal(value: number): string {
  return value.toFixed(1);
}

/** One process's line: host, pid, totals, rate and how long ago it was last heard from. */
function processLine(one: LiveProcess): string {
  const who = `process ${one.host} pid ${one.pid ?? "-"}`;
  const beat = `last heartbeat ${oneDecimal(one.heartbeatAgeSeconds)} s ago`;
  if (!one.totals) return `${who}: no stats (a process of an earlier version), ${beat}\n`;
  const { pages, items, errors, pagesPerSecond } = one.totals;
  return `${who}: pages ${pages}, items ${items}, errors ${errors}, ${oneDecimal(pagesPerSecond)} pages/s, ${beat}\n`;
}

/**
 * The crawl's totals over its live processes and one line per process, oldest heartbeat first; nothing while no
 * process is live (the five lines stay exactly as they were).
 */
export function formatCrawlStats(status: FrontierStatus): string {
  const { crawl, live } = status;
  if (!crawl || !live || live.length === 0) return "";
  return `pages: ${crawl.pages}\nitems: ${crawl.items}\nerrors: ${crawl.errors}\n` +
    `pages/s: ${oneDecimal(crawl.pagesPerSecond)} (last minute)\n` + live.map(processLine).join("");
}

/**
 * `--json`: the five numbers, `crawl` (the live processes' totals) and `live` (one object per process; its pages,
 * items, errors and pages_per_second are null for a process of an earlier version).
 */
export function statusJson(status: FrontierStatus): Record<string, unknown> {
  const { waiting, held, processes, seen, queued } = status;
  const crawl = status.crawl ?? { pages: 0, items: 0, errors: 0, pagesPerSecond: 0 };
  return {
    waiting,
    held,
    processes,
    seen,
    queued,
    crawl: { pages: crawl.pages, items: crawl.items, errors: crawl.errors, pages_per_second: crawl.pagesPerSecond },
    live: (status.live ?? []).map((one) => ({
      id: one.id,
      host: one.host,
      pid: one.pid,
      last_heartbeat: one.lastHeartbeat.toISOString(),
      heartbeat_age_seconds: one.heartbeatAgeSeconds,
      pages: one.totals?.pages ?? null,
      items: one.totals?.items ?? null,
      errors: one.totals?.errors ?? null,
      pages_per_second: one.totals?.pagesPerSecond ?? null,
    })),
  };
}
