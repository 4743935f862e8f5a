/**
 * How ScrapydWeb's LogParser (my8100/logparser 0.8.4, logparser/common.py and scrapylogparser.py) reads a Scrapy log,
 * restated here in our own words from reading its regexes, so tests can check Netweir's job logs against it without
 * depending on a copy of LogParser:
 *
 * - progress lines: a time `YYYY-MM-DD HH:MM:SS` at a line's start, then anywhere on that line
 *   `Crawled N pages (at N pages/min), scraped N items (at N items/min)`; pages and items are the largest seen;
 * - the closing block: the first line with a time and `Dumping Scrapy stats:`, and from the first `{` after it to the
 *   last `}` of the whole log (greedy, across lines), or else a line with `INFO: Spider closed`;
 * - that block is read as JSON after rewriting Python's forms: `'…'` quotes into `"…"`, `None` into null, a
 *   `datetime.datetime(…)` into a string; pages come from `response_received_count`, items from
 *   `item_scraped_count` and the finish reason from `finish_reason`, replacing the progress lines' figures.
 *
 * LogParser adds a line break before the text and a dummy log line after it; so does this.
 */

const TIME = String.raw`\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}`;
const PROGRESS = new RegExp(
  String.raw`\n(${TIME}) .+?Crawled (\d+) pages \(at (\d+) pages/min\), scraped (\d+) items \(at (\d+) items/min\)`,
  "g",
);
const ENDING = new RegExp(
  String.raw`(${TIME}) [^\n]+?(Dumping Scrapy stats:.*?(\{.+\}).*?|INFO: Spider closed.*)`,
  "s",
);

/** What LogParser would make of a log. */
export interface LogParserReading {
  pages: number | null;
  items: number | null;
  finishReason: string;
  /** The closing block's stats as LogParser parses them, or null when there is none (or it is not JSON then). */
  crawlerStats: Record<string, unknown> | null;
  progressLines: number;
}

/** The dict of Scrapy's "Dumping Scrapy stats:" rewritten into JSON as LogParser rewrites it. */
function pythonDictToJson(text: string): unknown {
  const rewritten = text
    .replace(/(datetime\.datetime\(.+?\))/g, `"$1"`)
    .replace(/(".*?)'(.*?)'(.*?")/g, "$1_$2_$3")
    .replace(/'(.+?)'/g, `"$1"`)
    .replace(/[bu]"(.+?)"/g, `"$1"`)
    .replace(/: None([,}])/g, ": null$1");
  return JSON.parse(rewritten);
}

/** Reads a log as LogParser does (see the module's comment). */
export function readLikeLogParser(log: string): LogParserReading {
  const text = `\n${log}\n2019-01-01 00:00:01 [] DEBUG`;
  const progress = [...text.matchAll(PROGRESS)];
  const reading: LogParserReading = {
    pages: progress.length > 0 ? Math.max(...progress.map((m) => Number(m[2]))) : null,
    items: progress.length > 0 ? Math.max(...progress.map((m) => Number(m[4]))) : null,
    finishReason: "N/A",
    crawlerStats: null,
    progressLines: progress.length,
  };
  const ending = ENDING.exec(text);
  if (ending?.[3]) {
    const stats = pythonDictToJson(ending[3]) as Record<string, unknown>;
    reading.crawlerStats = stats;
    if (typeof stats.finish_reason === "string") reading.finishReason = stats.finish_reason;
    if (typeof stats.response_received_count === "number") reading.pages = stats.response_received_count;
    if (typeof stats.item_scraped_count === "number") reading.items = stats.item_scraped_count;
  }
  return reading;
}
