/**
 * The page at `/`: the jobs at a glance, each linked to its own page (job_page.ts), with links to its log and items
 * and, for running jobs, their stats so far. Filters by project, spider and outcome, and pages through the finished
 * jobs, so a service that keeps a thousand of them still serves a small page. Server-rendered and reloaded every 5
 * seconds (as often as a job writes its stats); no script, no external asset, and every text from a job or a spider
 * escaped. Filters are links, not a form. With actions (dashboard_forms.ts), each job has its Cancel or Re-run button
 * and each schedule its Pause or Resume and Delete, and a link leads to the forms that start jobs (`/new`).
 */
import { escapeHtml } from "./html.ts";
import { duration, fileLinks, jobPageUrl, number, STYLE, time } from "./page_parts.ts";
import {
  actionForms,
  BUTTON_STYLE,
  jobButtons,
  newJobLink,
  type PageActions,
  scheduleButtons,
} from "./dashboard_forms.ts";
import type { ScheduleRecord } from "./schedule_store.ts";
import { JOB_OUTCOMES, type JobOutcome, type JobRecord } from "./types.ts";

/** The list's filters and page, from the query string. */
export interface ListQuery {
  project?: string;
  spider?: string;
  outcome?: string;
  /** 1-based page of the finished jobs. */
  page: number;
}

/** What the page shows. */
export interface StatusPageData {
  nodeName: string;
  projects: string[];
  jobs: readonly JobRecord[];
  /** Stats of running jobs by job id (null while a job has written none). */
  stats: ReadonlyMap<string, Record<string, unknown> | null>;
  query?: ListQuery;
  /** The periodic schedules (listschedules.json's). */
  schedules?: readonly ScheduleRecord[];
  /** The session's token, for the buttons; without it the page has none. */
  actions?: PageActions;
  /** Alerts waiting for their webhook to take them (webhooks.ts); said on the page when there are any. */
  undeliveredAlerts?: number;
}

/** Finished jobs a page, and waiting jobs shown before "and N more". */
export const PAGE_SIZE = 50;

const OUTCOMES: readonly JobOutcome[] = JOB_OUTCOMES;

/** The filters and page of `/?project=..&spider=..&outcome=..&page=N`; anything else is ignored. */
export function parseListQuery(search: URLSearchParams): ListQuery {
  const text = (name: string) => {
    const value = search.get(name);
    return value === null || value === "" ? undefined : value;
  };
  const page = Number(search.get("page") ?? "1");
  return {
    project: text("project"),
    spider: text("spider"),
    outcome: text("outcome"),
    page: Number.isInteger(page) && page >= 1 ? page : 1,
  };
}

/** The URL of the list with `changes` applied to `query` (a filter change goes back to page 1). */
function listUrl(query: ListQuery, changes: Partial<ListQuery>): string {
  const next = { ...query, ...changes };
  if (!("page" in changes)) next.page = 1;
  const params = new URLSearchParams();
  for (const key of ["project", "spider", "outcome"] as const) if (next[key]) params.set(key, next[key]!);
  if (next.page > 1) params.set("page", String(next.page));
  const search = params.toString();
  return search ? `/?${search}` : "/";
}

function statsCell(stats: Record<string, unknown> | null | undefined): string {
  if (!stats) return `<span class="dim">no stats yet</span>`;
  const elapsed = typeof stats.elapsed_seconds === "number" ? duration(stats.elapsed_seconds) : "–";
  return `${number(stats.pages)} pages · ${number(stats.items)} items · ${number(stats.errors)} errors · ` +
    `${escapeHtml(elapsed)}`;
}

function jobCells(job: JobRecord): string {
  return `<td><a href="${escapeHtml(jobPageUrl(job))}"><code>${escapeHtml(job.id)}</code></a></td>` +
    `<td>${escapeHtml(job.project)}</td><td>${escapeHtml(job.spider)}</td>`;
}

function table(title: string, headings: string[], rows: string[], count = rows.length, note = ""): string {
  const head = headings.map((heading) => `<th>${heading}</th>`).join("");
  const body = rows.length > 0 ? rows.join("\n") : `<tr><td colspan="${headings.length}" class="dim">none</td></tr>`;
  return `<h2 id="${title.toLowerCase()}">${title} <span class="count">${number(count)}</span></h2>\n` +
    `<table class="list-${title.toLowerCase()}"><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>${note}`;
}

/** One line of filter links: "all" and each value, the current one marked. */
function filterLine(label: string, key: "project" | "spider" | "outcome", values: string[], query: ListQuery): string {
  const link = (value: string | undefined, text: string) => {
    const on = (query[key] ?? undefined) === value;
    return `<a class="filter-${key}${on ? " on" : ""}" href="${escapeHtml(listUrl(query, { [key]: value }))}">` +
      `${escapeHtml(text)}</a>`;
  };
  return `<span>${label}: ${[link(undefined, "all"), ...values.map((value) => link(value, value))].join(" · ")}</span>`;
}

/** A schedule's row: when it is next due, and what its last due time did (the job it fired, or why not). */
function scheduleRow(schedule: ScheduleRecord, actions: PageActions | undefined): string {
  const last = schedule.lastNote !== null
    ? `<span class="dim">${escapeHtml(schedule.lastNote)}</span>`
    : schedule.lastJob !== null
    ? `<a href="${escapeHtml(jobPageUrl({ project: schedule.job.project, id: schedule.lastJob }))}"><code>` +
      `${escapeHtml(schedule.lastJob)}</code></a>`
    : "";
  const next = schedule.paused ? `<span class="dim">paused</span>` : time(schedule.nextAt);
  return `<tr><td><code>${escapeHtml(schedule.id)}</code></td><td>${escapeHtml(schedule.job.project)}</td>` +
    `<td>${escapeHtml(schedule.job.spider)}</td><td><code>${escapeHtml(schedule.cron)}</code> ` +
    `<span class="dim">${escapeHtml(schedule.timezone)}</span></td><td>${next}</td><td>${last}</td>` +
    `<td>${scheduleButtons(schedule, actions)}</td></tr>`;
}

const sameName = (a: string, b: string | undefined) => b === undefined || a.toLowerCase() === b.toLowerCase();

/** The whole page, as HTML. */
/** A line saying alerts wait for their webhook: an operator who reads no metrics sees it here. */
function waitingAlerts(count: number): string {
  if (count === 0) return "";
  const what = count === 1 ? "1 alert is" : `${number(count)} alerts are`;
  return `<p class="alerts-waiting"><strong>${what} waiting for a webhook that has not taken ${
    count === 1 ? "it" : "them"
  }</strong> <span class="dim">(tried again with growing waits, up to 24 h; the service's log says why each try ` +
    `failed)</span></p>`;
}

export function renderStatusPage(data: StatusPageData): string {
  const query = data.query ?? { page: 1 };
  const shown = data.jobs.filter((job) => sameName(job.project, query.project) && sameName(job.spider, query.spider));
  // An outcome is a finished job's: filtering by one leaves the waiting and running jobs out.
  const byOutcome = query.outcome === undefined ? shown : shown.filter((job) => job.outcome === query.outcome);
  const running = byOutcome.filter((job) => job.state === "running");
  const pending = byOutcome.filter((job) => job.state === "pending")
    .sort((a, b) => b.priority - a.priority || a.createdAt - b.createdAt);
  const finished = byOutcome.filter((job) => job.state === "finished")
    .sort((a, b) => (b.endedAt ?? b.createdAt) - (a.endedAt ?? a.createdAt));
  const pages = Math.max(1, Math.ceil(finished.length / PAGE_SIZE));
  const page = Math.min(query.page, pages);
  const finishedPage = finished.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
  const projects = [...new Set([...data.projects, ...data.jobs.map((job) => job.project)])].sort();
  const spiders = [...new Set(data.jobs.filter((job) => sameName(job.project, query.project)).map((job) => job.spider))]
    .sort();
  const pager = pages <= 1
    ? ""
    : `<p class="pager">${
      page > 1 ? `<a rel="prev" href="${escapeHtml(listUrl(query, { page: page - 1 }))}">← newer</a> · ` : ""
    }page ${page} of ${pages}${
      page < pages ? ` · <a rel="next" href="${escapeHtml(listUrl(query, { page: page + 1 }))}">older →</a>` : ""
    }</p>`;
  const morePending = pending.length > PAGE_SIZE
    ? `<p class="dim">and ${number(pending.length - PAGE_SIZE)} more waiting (all of them in listjobs.json)</p>`
    : "";
  const all = data.jobs;
  const count = (state: JobRecord["state"]) => all.filter((job) => job.state === state).length;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="5">
<title>netweir serve · ${escapeHtml(data.nodeName)}</title>
<style>${STYLE}${BUTTON_STYLE}</style>
</head>
<body>
<h1>netweir serve <span class="dim">on ${escapeHtml(data.nodeName)}</span></h1>
<nav><a href="/jobs">Jobs</a> · <a href="/logs/">Logs</a> · <a href="/items/">Items</a>
<span class="dim">(scrapyd's pages, for dashboards that read them)</span></nav>
<p>${count("running")} running · ${count("pending")} waiting · ${count("finished")} finished.
<span class="dim">This page reloads every 5 seconds.</span></p>
${waitingAlerts(data.undeliveredAlerts ?? 0)}
${newJobLink(data.actions)}
${actionForms(data.actions, "list")}
<p class="filters">${filterLine("project", "project", projects, query)}
${filterLine("spider", "spider", spiders, query)}
${filterLine("outcome", "outcome", [...OUTCOMES], query)}</p>
${
    table(
      "Running",
      ["job", "project", "spider", "started", "stats so far", "", ""],
      running.map((job) =>
        `<tr>${jobCells(job)}<td>${time(job.startedAt)}</td><td>${statsCell(data.stats.get(job.id))}</td>` +
        `<td>${fileLinks(job)}</td><td>${jobButtons(job, data.actions)}</td></tr>`
      ),
    )
  }
${
    table(
      "Waiting",
      ["job", "project", "spider", "priority", "scheduled", ""],
      pending.slice(0, PAGE_SIZE).map((job) =>
        `<tr>${jobCells(job)}<td>${escapeHtml(job.priority)}</td><td>${time(job.createdAt)}</td>` +
        `<td>${jobButtons(job, data.actions)}</td></tr>`
      ),
      pending.length,
      morePending,
    )
  }
${
    table(
      "Finished",
      ["job", "project", "spider", "outcome", "started", "ended", "", ""],
      finishedPage.map((job) =>
        `<tr>${jobCells(job)}<td class="outcome ${escapeHtml(job.outcome ?? "")}">${escapeHtml(job.outcome ?? "")}` +
        `</td><td>${time(job.startedAt)}</td><td>${time(job.endedAt)}</td><td>${fileLinks(job)}</td>` +
        `<td>${jobButtons(job, data.actions)}</td></tr>`
      ),
      finished.length,
      pager,
    )
  }
${
    table(
      "Schedules",
      ["schedule", "project", "spider", "when", "next run", "last run", ""],
      (data.schedules ?? []).filter((s) => sameName(s.job.project, query.project))
        .map((schedule) => scheduleRow(schedule, data.actions)),
    )
  }
</body>
</html>
`;
}
