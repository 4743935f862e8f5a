/**
 * The end of a crawl's log in Scrapy's words, written when the log is in Scrapy's format (netweir serve's jobs):
 * "Closing spider (REASON)", "Dumping Scrapy stats:" with the stats as Python prints a dict, "Spider closed (REASON)".
 * Log readers written for scrapyd's logs (ScrapydWeb's LogParser) take a job's finish reason, pages and items from
 * that block: pages from `response_received_count`, items from `item_scraped_count`. They read the dict by turning
 * its quotes into JSON's and `None` into null, so every value here is a number, a quoted string without quotes,
 * backslashes or braces inside, or None; nothing else (no True/False, no lists) survives that.
 */
import type { StatsRecord } from "../engine/stats.ts";
import type { Logger } from "../spider/types.ts";

type PyValue = number | string | null;

/** Netweir's counters under the names Scrapy's stats collector gives them (the rest keep their own names). */
const SCRAPY_NAMES: Readonly<Record<string, string>> = {
  requests: "downloader/request_count",
  pages: "response_received_count",
  items: "item_scraped_count",
  items_dropped: "item_dropped_count",
  retries: "retry/count",
  bytes: "downloader/response_bytes",
  elapsed_seconds: "elapsed_time_seconds",
};

/** A text as a Python string literal LogParser can read back: nothing inside that its rewriting would break. */
function pyString(text: string): string {
  return `'${text.replace(/['"\\{}\r\n]/g, "")}'`;
}

function pyValue(value: PyValue): string {
  if (value === null) return "None";
  return typeof value === "number" ? String(value) : pyString(value);
}

/** The stats flattened into Scrapy's keys and plain values. */
export function scrapyStats(stats: StatsRecord): Map<string, PyValue> {
  const flat = new Map<string, PyValue>();
  for (const [key, value] of Object.entries(stats)) {
    if (key === "series") continue;
    const name = SCRAPY_NAMES[key] ?? key;
    if (typeof value === "number" && Number.isFinite(value)) flat.set(name, value);
    else if (typeof value === "string" || value === null) flat.set(name, value);
    else if (typeof value === "boolean") flat.set(name, String(value));
  }
  for (const [code, n] of Object.entries((stats.status ?? {}) as Record<string, unknown>)) {
    if (typeof n === "number") flat.set(`downloader/response_status_count/${code}`, n);
  }
  for (const [reason, n] of Object.entries((stats.dropped ?? {}) as Record<string, unknown>)) {
    if (typeof n === "number") flat.set(`dropped/${reason}`, n);
  }
  const monitors = stats.monitors as { passed?: unknown; failed?: { monitor?: unknown }[] } | undefined;
  if (monitors && typeof monitors === "object") {
    flat.set("monitors/passed", monitors.passed === true ? "true" : "false");
    const failed = (monitors.failed ?? []).map((one) => String(one.monitor));
    if (failed.length > 0) flat.set("monitors/failed", failed.join(", "));
  }
  return flat;
}

/** The stats as Scrapy's stats collector prints them: a Python dict, keys sorted, one per line. */
export function scrapyStatsDict(stats: StatsRecord): string {
  const entries = [...scrapyStats(stats)].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
  return `{${entries.map(([key, value]) => `${pyString(key)}: ${pyValue(value)}`).join(",\n ")}}`;
}

/** Logs the three closing lines of a Scrapy log: the reason, the stats, the spider closed. */
export function logScrapyClosing(log: Logger, stats: StatsRecord): void {
  const reason = typeof stats.finish_reason === "string" ? stats.finish_reason : "finished";
  log.info(`Closing spider (${reason})`);
  log.info(`Dumping Scrapy stats:\n${scrapyStatsDict(stats)}`);
  log.info(`Spider closed (${reason})`);
}
