/**
 * Timers around a running crawl: the time and memory limits, the stats file every statsInterval seconds (the job
 * server reads it; with a `series` of [seconds, pages, items] points for its chart), and the live progress line on a terminal or, without one, a progress line in the log every
 * logInterval seconds.
 */
import { rename, writeFile } from "node:fs/promises";
import { runtime } from "../runtime/mod.ts";
import type { Frontier } from "../queue/frontier.ts";
import type { Logger } from "../spider/types.ts";
import type { Crawl } from "./crawl.ts";
import { memoryLimitReached } from "./limits.ts";
import { formatLogStats, formatProgress } from "./progress.ts";

const TICK_MS = 1000;

/** Writes the stats file whole (a temporary file, then a rename), so a reader never sees half a file. */
export async function writeStatsFile(path: string, stats: unknown): Promise<void> {
  const temporary = `${path}.tmp`;
  await writeFile(temporary, JSON.stringify(stats, null, 2) + "\n");
  await rename(temporary, path);
}

/** One point of the stats file's series: seconds since the start, pages, items. */
export type StatsSample = [elapsed: number, pages: number, items: number];

/** Points the series keeps at most: when full, every other one is dropped, so a long crawl keeps its whole shape. */
const MAX_SAMPLES = 512;

function addSample(series: StatsSample[], sample: StatsSample): void {
  if (series.length >= MAX_SAMPLES) {
    const kept = series.filter((_, index) => index % 2 === 0);
    series.splice(0, series.length, ...kept);
  }
  series.push(sample);
}

export function startWatchers(crawl: Crawl, frontier: Frontier, log: Logger): { stop(): Promise<void> } {
  const settings = crawl.settings;
  const timers: ReturnType<typeof setTimeout>[] = [];
  const showProgress = settings.progress ?? runtime.stderrIsTerminal();
  let lastPages = 0;
  let lastTick = Date.now();
  let writing: Promise<void> = Promise.resolve();

  if (settings.maxTime !== null) {
    timers.push(setTimeout(() => crawl.stop("max_time"), settings.maxTime * 1000));
  }
  if (settings.maxMemory !== null || showProgress) {
    timers.push(setInterval(() => {
      if (memoryLimitReached(settings, runtime.memoryRss())) crawl.stop("max_memory");
      if (showProgress && crawl.stopReason === null) {
        const now = Date.now();
        const pages = crawl.stats.get("pages");
        const rate = (pages - lastPages) / ((now - lastTick) / 1000 || 1);
        lastPages = pages;
        lastTick = now;
        frontier.status().then((status) => {
          if (crawl.stopReason !== null) return;
          runtime.writeStderr(
            "\r\x1b[K" + formatProgress(crawl.stats, rate, status.waiting + crawl.localCounts.waiting),
          );
        }).catch(() => {});
      }
    }, TICK_MS));
  }
  if (!showProgress) {
    // No live line (a file, a pipe, a job of netweir serve): a line in the log every logInterval seconds instead.
    // A job's log (Scrapy's format, which serve writes and LogParser reads) gets its first at once, as Scrapy's does,
    // so a log being tailed shows the job is alive; elsewhere a line saying nothing was crawled yet is noise.
    let last = { pages: 0, items: 0, at: Date.now() };
    const logStats = () => {
      if (crawl.stopReason !== null) return;
      const now = { pages: crawl.stats.get("pages"), items: crawl.stats.get("items"), at: Date.now() };
      const perMinute = 60_000 / (now.at - last.at || 1);
      log.info(
        formatLogStats(
          now.pages,
          now.items,
          (now.pages - last.pages) * perMinute,
          (now.items - last.items) * perMinute,
        ),
      );
      last = now;
    };
    if (settings.logFormat === "scrapy") logStats();
    timers.push(setInterval(logStats, settings.logInterval * 1000));
  }
  const statsFile = settings.statsFile;
  const series: StatsSample[] = [];
  const saveStats = () => {
    if (!statsFile) return Promise.resolve();
    const record = crawl.statsRecord();
    addSample(series, [
      Math.round(crawl.stats.elapsed() * 10) / 10,
      crawl.stats.get("pages"),
      crawl.stats.get("items"),
    ]);
    writing = writing.then(() => writeStatsFile(statsFile, { ...record, series })).catch((error) =>
      log.warning(`could not write stats file ${statsFile}: ${error.message}`)
    );
    return writing;
  };
  if (statsFile) {
    saveStats();
    timers.push(setInterval(saveStats, settings.statsInterval * 1000));
  }
  return {
    stop() {
      for (const timer of timers) clearTimeout(timer);
      if (showProgress) runtime.writeStderr("\r\x1b[K");
      return saveStats();
    },
  };
}
