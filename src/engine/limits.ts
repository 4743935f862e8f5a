/** The limits of C11 that are counted (items, pages, errors); time and memory are watched by timers in the crawl. */
import type { SettingValues } from "../settings/table.ts";
import type { Stats } from "./stats.ts";

/** The finish reason of the first counted limit reached, or undefined. */
export function countedLimitReached(settings: SettingValues, stats: Stats): string | undefined {
  if (settings.maxItems !== null && stats.get("items") >= settings.maxItems) return "max_items";
  if (settings.maxPages !== null && stats.get("pages") >= settings.maxPages) return "max_pages";
  if (settings.maxErrors !== null && stats.get("errors") >= settings.maxErrors) return "max_errors";
  return undefined;
}

/** Whether resident memory is over maxMemory (MiB). */
export function memoryLimitReached(settings: SettingValues, rssBytes: number): boolean {
  return settings.maxMemory !== null && rssBytes > settings.maxMemory * 1024 * 1024;
}
