/** The live progress line: pages, pages/s, items, waiting, errors. */
import type { Stats } from "./stats.ts";

export function formatProgress(stats: Stats, pagesPerSecond: number, waiting: number): string {
  return `pages ${stats.get("pages")} (${pagesPerSecond.toFixed(1)}/s)  items ${stats.get("items")}  ` +
    `waiting ${waiting}  errors ${stats.get("errors")}`;
}
