/**
 * What a job's webhook is sent: a `text` line that Slack and Mattermost incoming webhooks post as it is, and the
 * whole story as JSON beside it (the job, its outcome, its final stats and its monitors' verdict), with every
 * secret masked as listjobs.json masks it. docs/serve.md documents the shape.
 */
import { maskArgument, maskedPairs, maskSetting, maskStrings } from "./secrets.ts";
import { type MonitorVerdict, monitorVerdict } from "./job_outcome.ts";
import { itemsUrl, logUrl } from "./scrapyd_format.ts";
import type { JobOutcome, JobRecord } from "./types.ts";

/** `started` when the job's process has started, `ended` once it has finished (whatever its outcome). */
export type AlertEvent = "started" | "ended";

/** The JSON a webhook receives. */
export interface AlertPayload {
  /** One line for people: what happened to which job, its numbers, the monitors that failed. */
  text: string;
  event: AlertEvent;
  node_name: string;
  job: {
    id: string;
    project: string;
    spider: string;
    state: string;
    outcome: JobOutcome | null;
    /** The periodic schedule that fired it, or null. */
    schedule: string | null;
    start_time: string | null;
    end_time: string | null;
    /** null for a job that never started (cancelled while it waited): it has no log or items. */
    log_url: string | null;
    items_url: string | null;
    page_url: string;
    settings: Record<string, string>;
    args: Record<string, string>;
  };
  /** The crawl's final stats (its last ones for a job that was killed), null when it wrote none. */
  stats: Record<string, unknown> | null;
  /** The monitors' verdict, null when the job had no monitors. */
  monitors: MonitorVerdict | null;
}

/** An outcome in words, for the text line. */
const OUTCOME_WORDS: Readonly<Record<JobOutcome, string>> = {
  finished: "finished",
  monitor_failed: "finished, but a monitor failed",
  failed: "failed",
  cancelled: "was cancelled",
  lost: "was lost (running when the service died)",
};

const iso = (ms: number | null) => ms === null ? null : new Date(ms).toISOString();

function count(stats: Record<string, unknown> | null, key: string): number {
  const value = stats?.[key];
  return typeof value === "number" ? value : 0;
}

/** "120 pages, 300 items, 2 errors in 61 s", or "" without stats. */
function numbers(stats: Record<string, unknown> | null): string {
  if (stats === null) return "";
  const seconds = Math.round(count(stats, "elapsed_seconds"));
  return `${count(stats, "pages")} pages, ${count(stats, "items")} items, ${count(stats, "errors")} errors in ` +
    `${seconds} s`;
}

function textLine(event: AlertEvent, job: JobRecord, nodeName: string, stats: Record<string, unknown> | null) {
  const who = `netweir job ${job.id} (${job.project}/${job.spider}) on ${nodeName}`;
  if (event === "started") return `${who} started`;
  const reason = typeof stats?.finish_reason === "string" ? ` (${stats.finish_reason})` : "";
  const outcome = job.outcome ?? "finished";
  if (outcome === "cancelled" && job.startedAt === null) return `${who} was cancelled before it started`;
  const parts = [`${who} ${OUTCOME_WORDS[outcome]}${outcome === "finished" ? reason : ""}`];
  const figures = numbers(stats);
  if (figures !== "") parts.push(figures);
  const failed = monitorVerdict(stats)?.failed ?? [];
  if (failed.length > 0) parts.push(failed.map(({ monitor, message }) => `${monitor}: ${message}`).join("; "));
  return parts.join(". ");
}

/** The payload for `event` of `job`, with the stats it last wrote (null when none). */
export function alertPayload(
  event: AlertEvent,
  job: JobRecord,
  nodeName: string,
  stats: Record<string, unknown> | null,
): AlertPayload {
  // The chart's points are the job page's; the webhook gets the numbers, as jobstats.json does.
  const shown = stats && Object.fromEntries(Object.entries(stats).filter(([key]) => key !== "series"));
  const masked = maskStrings(shown) as Record<string, unknown> | null;
  // Cancelled while it waited: no process ever ran, so no log or items file exists (their URLs answer 404).
  const neverStarted = job.state === "finished" && job.startedAt === null && job.outcome === "cancelled";
  return {
    text: textLine(event, job, nodeName, masked),
    event,
    node_name: nodeName,
    job: {
      id: job.id,
      project: job.project,
      spider: job.spider,
      state: job.state,
      outcome: job.outcome,
      schedule: job.schedule,
      start_time: iso(job.startedAt),
      end_time: iso(job.endedAt),
      log_url: neverStarted ? null : logUrl(job),
      items_url: neverStarted ? null : itemsUrl(job),
      page_url: `/job/${encodeURIComponent(job.project)}/${encodeURIComponent(job.id)}`,
      settings: maskedPairs(job.settings, maskSetting),
      args: maskedPairs(job.args, maskArgument),
    },
    stats: event === "ended" ? masked : null,
    monitors: event === "ended" ? monitorVerdict(masked) : null,
  };
}
