/** How jobs look in scrapyd's answers: its field names, its time format, its URLs for logs and items. */
import { maskArgument, maskedPairs, maskSetting } from "./secrets.ts";
import type { JobRecord } from "./types.ts";

type JobKey = Pick<JobRecord, "project" | "spider" | "id">;

/** A time as scrapyd prints Python's datetime.now(): local time, "YYYY-MM-DD HH:MM:SS.ffffff". */
export function scrapydTime(epochMs: number | null): string | null {
  if (epochMs === null) return null;
  const date = new Date(epochMs);
  const pad = (value: number, width = 2) => String(value).padStart(width, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.` +
    `${pad(date.getMilliseconds(), 3)}000`;
}

function jobPath(job: JobKey): string {
  return [job.project, job.spider, job.id].map(encodeURIComponent).join("/");
}

/** Where the app serves a job's log. */
export function logUrl(job: JobKey): string {
  return `/logs/${jobPath(job)}.log`;
}

/** Where the app serves a job's items (.jl as scrapyd's; .jsonl works too). */
export function itemsUrl(job: JobKey): string {
  return `/items/${jobPath(job)}.jl`;
}

/**
 * Whether scrapyd would have forgotten the job: one cancelled while it waited, which scrapyd takes out of its queue
 * and never lists again. listjobs.json leaves it out and status.json answers null for it, as scrapyd's do, so a
 * client (python-scrapyd-api's job_status) does not take it for a job that ran and finished; Netweir's own pages and
 * jobstats.json still show it, cancelled.
 */
export function scrapydForgets(job: JobRecord): boolean {
  return job.state === "finished" && job.startedAt === null;
}

/**
 * One job in listjobs.json: scrapyd's fields, plus Netweir's outcome (null until it is finished). A waiting job has
 * no log_url or items_url, as in scrapyd: it has neither file yet.
 */
export function listedJob(job: JobRecord): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    id: job.id,
    project: job.project,
    spider: job.spider,
    pid: job.pid,
    start_time: scrapydTime(job.startedAt),
    end_time: scrapydTime(job.endedAt),
    log_url: logUrl(job),
    items_url: itemsUrl(job),
    outcome: job.outcome,
  };
  if (job.state === "pending") {
    delete entry.log_url;
    delete entry.items_url;
  }
  // The periodic schedule that fired it (addschedule.json); absent for a job scheduled by hand.
  if (job.schedule !== null) entry.schedule = job.schedule;
  if (job.state === "pending") {
    // scrapyd shows a waiting job's settings and arguments; a running or finished one's are in its log.
    entry.priority = job.priority;
    entry.version = null;
    entry.settings = maskedPairs(job.settings, maskSetting);
    entry.args = maskedPairs(job.args, maskArgument);
  }
  return entry;
}

/** listjobs.json's three lists. */
export function listedJobs(jobs: readonly JobRecord[]): Record<"pending" | "running" | "finished", unknown[]> {
  const lists = { pending: [] as unknown[], running: [] as unknown[], finished: [] as unknown[] };
  for (const job of jobs) if (!scrapydForgets(job)) lists[job.state].push(listedJob(job));
  return lists;
}
