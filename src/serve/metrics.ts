/**
 * `GET /metrics`: the service in Prometheus' text exposition format (version 0.0.4), for a Prometheus server to scrape
 * and Grafana to chart: jobs by state and outcome, each running job's pages, items, errors and pages per second, each
 * schedule's next and last run and last outcome, and the service's own memory. Every metric is a gauge (the values
 * are read from jobs.db and the stats files as they are now); label values are escaped as the format says.
 */
import { pagesPerSecondNow, seriesOf } from "./chart.ts";
import type { ScheduleRecord } from "./schedule_store.ts";
import { JOB_OUTCOMES, type JobOutcome, type JobRecord, type JobState } from "./types.ts";

/** What the page is made from. */
export interface MetricsData {
  jobs: readonly JobRecord[];
  /** Stats of running jobs by id (null while a job has written none). */
  stats: ReadonlyMap<string, Record<string, unknown> | null>;
  schedules: readonly ScheduleRecord[];
  /** The outcome of a job by id, for schedules' last jobs (undefined when it is forgotten). */
  jobById: (id: string) => JobRecord | undefined;
  /** The service's resident memory, in bytes. */
  memoryRss: number;
  /** Alerts kept until their webhook takes them (0 when not given). */
  undeliveredAlerts?: number;
}

/** The Content-Type of the text format. */
export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

const STATES: readonly JobState[] = ["pending", "running", "finished"];
const OUTCOMES: readonly JobOutcome[] = JOB_OUTCOMES;

/** A label value escaped: backslash, double quote and line feed. */
function labelValue(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
}

function labels(pairs: Record<string, string>): string {
  const text = Object.entries(pairs).map(([name, value]) => `${name}="${labelValue(value)}"`).join(",");
  return text === "" ? "" : `{${text}}`;
}

/** A number as the format writes one: NaN and the infinities by name. */
function sample(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

/** One metric family: HELP, TYPE gauge, and its samples (a family with none is left out). */
function gauge(name: string, help: string, samples: [Record<string, string>, number][]): string {
  if (samples.length === 0) return "";
  return `# HELP ${name} ${help}\n# TYPE ${name} gauge\n` +
    samples.map(([pairs, value]) => `${name}${labels(pairs)} ${sample(value)}\n`).join("");
}

const seconds = (ms: number) => ms / 1000;

/** A stats number, or NaN when the crawl has not written it. */
function stat(stats: Record<string, unknown> | null | undefined, key: string): number {
  const value = stats?.[key];
  return typeof value === "number" ? value : NaN;
}

/**
 * What a schedule's last due time came to: skipped (with its reason in listschedules.json), or its last job's state
 * or outcome; none before its first due time, unknown once its job is forgotten.
 */
function lastOutcome(schedule: ScheduleRecord, jobById: MetricsData["jobById"]): string {
  if (schedule.lastNote !== null) return "skipped";
  if (schedule.lastJob === null) return "none";
  const job = jobById(schedule.lastJob);
  if (!job) return "unknown";
  return job.state === "finished" ? job.outcome ?? "finished" : job.state;
}

/** The whole exposition. */
export function renderMetrics(data: MetricsData): string {
  const parts: string[] = [];
  parts.push(gauge(
    "netweir_serve_jobs",
    "Jobs the service has, by state (finished ones as many as --keep remembers).",
    STATES.map((state) => [{ state }, data.jobs.filter((job) => job.state === state).length]),
  ));
  parts.push(gauge(
    "netweir_serve_finished_jobs",
    "Finished jobs the service remembers, by outcome.",
    OUTCOMES.map((outcome) => [{ outcome }, data.jobs.filter((job) => job.outcome === outcome).length]),
  ));
  const running = data.jobs.filter((job) => job.state === "running");
  const perJob = (key: string) =>
    running.map((job): [Record<string, string>, number] => [
      { job: job.id, project: job.project, spider: job.spider },
      stat(data.stats.get(job.id), key),
    ]);
  parts.push(gauge("netweir_serve_job_pages", "Pages a running job has fetched so far.", perJob("pages")));
  parts.push(gauge("netweir_serve_job_items", "Items a running job has written so far.", perJob("items")));
  parts.push(gauge("netweir_serve_job_errors", "Errors of a running job so far.", perJob("errors")));
  parts.push(gauge(
    "netweir_serve_job_pages_per_second",
    "Pages per second of a running job between its last two stats points (NaN before it has two).",
    running.map((job) => [
      { job: job.id, project: job.project, spider: job.spider },
      pagesPerSecondNow(seriesOf(data.stats.get(job.id) ?? null)) ?? NaN,
    ]),
  ));
  parts.push(gauge(
    "netweir_serve_job_start_time_seconds",
    "When a running job started, in seconds since the epoch.",
    running.map((job) => [{ job: job.id, project: job.project, spider: job.spider }, seconds(job.startedAt ?? NaN)]),
  ));
  const scheduleLabels = (s: ScheduleRecord) => ({ schedule: s.id, project: s.job.project, spider: s.job.spider });
  parts.push(gauge(
    "netweir_serve_schedule_paused",
    "1 for a paused schedule, 0 for an active one.",
    data.schedules.map((s) => [scheduleLabels(s), s.paused ? 1 : 0]),
  ));
  parts.push(gauge(
    "netweir_serve_schedule_next_run_time_seconds",
    "When a schedule is next due, in seconds since the epoch (NaN when paused or never again).",
    data.schedules.map((s) => [scheduleLabels(s), s.paused || s.nextAt === null ? NaN : seconds(s.nextAt)]),
  ));
  parts.push(gauge(
    "netweir_serve_schedule_last_run_time_seconds",
    "The last due time a schedule fired or skipped, in seconds since the epoch (NaN before its first).",
    data.schedules.map((s) => [scheduleLabels(s), s.lastDueAt === null ? NaN : seconds(s.lastDueAt)]),
  ));
  parts.push(gauge(
    "netweir_serve_schedule_last_outcome",
    "1 for what a schedule's last due time came to: its job's outcome or state, skipped, none or unknown.",
    data.schedules.map((s) => [{ ...scheduleLabels(s), outcome: lastOutcome(s, data.jobById) }, 1]),
  ));
  parts.push(gauge(
    "netweir_serve_alerts_undelivered",
    "Alerts kept until their webhook takes them: failed tries waiting for the next, and calls under way.",
    [[{}, data.undeliveredAlerts ?? 0]],
  ));
  parts.push(gauge("netweir_serve_memory_rss_bytes", "The service's resident memory.", [[{}, data.memoryRss]]));
  return parts.join("");
}
