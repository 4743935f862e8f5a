/** The live progress line (pages, pages/s, items, waiting, errors) and the log's progress line. */
import type { Stats } from "./stats.ts";

export function formatProgress(stats: Stats, pagesPerSecond: number, waiting: number): string {
  return `pages ${stats.get("pages")} (${pagesPerSecond.toFixed(1)}/s)  items ${stats.get("items")}  ` +
    `waiting ${waiting}  errors ${stats.get("errors")}`;
}

/**
 * The progress line of a log, every logInterval seconds when there is no live line, in Scrapy's words (its LogStats
 * extension), so that log parsers written for Scrapy (ScrapydWeb's LogParser) read it: rates per minute over the
 * last interval, whole numbers.
 */
export function formatLogStats(pages: number, items: number, pagesPerMinute: number, itemsPerMinute: number): string {
  return `Crawled ${pages} pages (at ${Math.round(pagesPerMinute)} pages/min), ` +
    `scraped ${items} items (at ${Math.round(itemsPerMinute)} items/min)`;
}
