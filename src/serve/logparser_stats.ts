/**
 * `/logs/stats.json` in the shape LogParser (my8100/logparser 0.8) writes it into scrapyd's logs folder, made from the
 * stats the service already keeps for each job, so ScrapydWeb's Pages and Items columns and its log statistics show
 * Netweir's numbers without LogParser running beside the service. One entry per job that has started, under
 * `datas[project][spider][job]`, with LogParser's keys: pages and items a number or null (what ScrapydWeb's jobs view
 * stores), the other values Netweir has none for "N/A", as LogParser writes them.
 */
import { stat } from "node:fs/promises";
import { pythonTimedelta } from "./jobs_page.ts";
import { scrapydTime } from "./scrapyd_format.ts";
import { readJobStats } from "./stats.ts";
import type { JobRecord, ServePaths } from "./types.ts";

/** The LogParser version ScrapydWeb 1.6 checks for. */
export const LOGPARSER_VERSION = "0.8.4";
const NA = "N/A";

const second = (epochMs: number) => scrapydTime(epochMs)!.slice(0, 19);

/** pages or items: a whole number, or null when the crawl has written none (ScrapydWeb stores either). */
function count(stats: Record<string, unknown> | null, key: string): number | null {
  const value = stats?.[key];
  return typeof value === "number" ? value : null;
}

/** One job's entry, LogParser's simplified keys. */
async function jobEntry(job: JobRecord, paths: ServePaths, now: number): Promise<Record<string, unknown>> {
  const stats = await readJobStats(paths.statsFile(job));
  const size = await stat(paths.logFile(job)).then((info) => info.size, () => 0);
  const first = job.startedAt!;
  const latest = job.endedAt ?? now;
  const reason = stats?.finish_reason;
  return {
    log_path: paths.logFile(job),
    size,
    position: size,
    status: job.state === "finished" ? "ok" : "running",
    pages: count(stats, "pages"),
    items: count(stats, "items"),
    first_log_time: second(first),
    latest_log_time: second(latest),
    runtime: pythonTimedelta(latest - first),
    first_log_timestamp: Math.floor(first / 1000),
    latest_log_timestamp: Math.floor(latest / 1000),
    shutdown_reason: NA,
    finish_reason: typeof reason === "string" ? reason : NA,
    last_update_time: second(now),
  };
}

/** The whole stats.json of these jobs (those never started have no log and are left out, as LogParser would). */
export async function logParserStats(
  jobs: readonly JobRecord[],
  paths: ServePaths,
  now: number = Date.now(),
): Promise<Record<string, unknown>> {
  const datas: Record<string, Record<string, Record<string, unknown>>> = {};
  const started = jobs.filter((job) => job.startedAt !== null);
  const entries = await Promise.all(started.map((job) => jobEntry(job, paths, now)));
  started.forEach((job, i) => {
    ((datas[job.project] ??= {})[job.spider] ??= {})[job.id] = entries[i];
  });
  return {
    status: "ok",
    datas,
    settings_py: NA,
    settings: {},
    last_update_timestamp: Math.floor(now / 1000),
    last_update_time: second(now),
    logparser_version: LOGPARSER_VERSION,
  };
}
