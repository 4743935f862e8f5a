/**
 * `/jobs`: scrapyd 1.6's jobs table, in its markup, because dashboards (ScrapydWeb first) read the jobs from this page
 * rather than from listjobs.json. What they depend on is kept exactly: the `<h1>Jobs</h1>`, one `<tbody>` per state
 * headed by a `<th colspan>` row, and one `<tr>` per job whose cells, each on one line, come in scrapyd's order
 * (Project, Spider, Job, PID, Start, Runtime, Finish, Log, Items, Cancel), with scrapyd's time formats and `<a>`
 * links to the log and items. Netweir's outcome comes after them, where a reader of scrapyd's columns never looks.
 *
 * The page is read-only: scrapyd's Cancel buttons are forms a browser would post with an Origin header, which this
 * service refuses (security.ts); the page says so and gives the cancel.json line to use instead.
 */
import { escapeHtml } from "./html.ts";
import { itemsUrl, logUrl, scrapydForgets, scrapydTime } from "./scrapyd_format.ts";
import type { JobRecord } from "./types.ts";

const HEADERS = ["Project", "Spider", "Job", "PID", "Start", "Runtime", "Finish", "Log", "Items", "Cancel", "Outcome"];

/** A time as scrapyd prints a datetime without its microseconds: "2024-01-02 03:04:05", local time. */
function whole(epochMs: number | null): string {
  return epochMs === null ? "" : scrapydTime(epochMs)!.slice(0, 19);
}

/** A duration as Python prints a timedelta without microseconds: "0:01:05", "1 day, 2:03:04". */
export function pythonTimedelta(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const days = Math.floor(total / 86_400);
  const rest = total % 86_400;
  const pad = (n: number) => String(n).padStart(2, "0");
  const clock = `${Math.floor(rest / 3600)}:${pad(Math.floor(rest / 60) % 60)}:${pad(rest % 60)}`;
  return days === 0 ? clock : `${days} day${days === 1 ? "" : "s"}, ${clock}`;
}

function row(cells: Record<string, string>): string {
  const tds = HEADERS.map((header) => `    <td>${cells[header] ?? ""}</td>`).join("\n");
  return `<tr>\n${tds}\n</tr>`;
}

function cancelHint(job: JobRecord): string {
  return `<code>curl -d project=${escapeHtml(job.project)} -d job=${escapeHtml(job.id)} .../cancel.json</code>`;
}

/** The cells every job has, and its links once it has started (a job cancelled while waiting has no log). */
function cells(job: JobRecord): Record<string, string> {
  const base: Record<string, string> = {
    Project: escapeHtml(job.project),
    Spider: escapeHtml(job.spider),
    Job: escapeHtml(job.id),
    Outcome: escapeHtml(job.outcome ?? ""),
  };
  if (job.startedAt !== null) {
    base.Log = `<a href="${escapeHtml(logUrl(job))}">Log</a>`;
    base.Items = `<a href="${escapeHtml(itemsUrl(job))}">Items</a>`;
  }
  return base;
}

function jobRow(job: JobRecord, now: number): string {
  const own = cells(job);
  if (job.state === "pending") return row({ ...own, Cancel: cancelHint(job) });
  if (job.state === "running") {
    return row({
      ...own,
      PID: escapeHtml(job.pid ?? ""),
      Start: whole(job.startedAt),
      Runtime: pythonTimedelta(now - (job.startedAt ?? now)),
      Cancel: cancelHint(job),
    });
  }
  // scrapyd shows no PID for finished jobs. A finished job that never started (not listed by renderJobsPage) would
  // show its end as Start: dashboards tell a waiting job by an empty Start cell.
  const started = job.startedAt ?? job.endedAt;
  return row({
    ...own,
    Start: whole(started),
    Runtime: started === null ? "" : pythonTimedelta((job.endedAt ?? started) - started),
    Finish: whole(job.endedAt),
  });
}

function section(title: string, jobs: readonly JobRecord[], now: number): string {
  const rows = jobs.map((job) => jobRow(job, now));
  return `<tbody>\n<tr>\n    <th colspan="${HEADERS.length}">${title}</th>\n</tr>\n${rows.join("\n")}\n</tbody>`;
}

/**
 * The page: waiting jobs in the order they start, running ones, finished ones (most recent last, as scrapyd lists
 * them). Jobs cancelled while they waited are left out, as from listjobs.json (scrapyd forgets them).
 */
export function renderJobsPage(jobs: readonly JobRecord[], now: number = Date.now()): string {
  const pending = jobs.filter((job) => job.state === "pending")
    .sort((a, b) => b.priority - a.priority || a.createdAt - b.createdAt);
  const running = jobs.filter((job) => job.state === "running");
  const finished = jobs.filter((job) => job.state === "finished" && !scrapydForgets(job))
    .sort((a, b) => (a.endedAt ?? a.createdAt) - (b.endedAt ?? b.createdAt));
  const head = HEADERS.map((header) => `    <th>${header}</th>`).join("\n");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Jobs · netweir serve</title>
<style>
body { font-family: system-ui, sans-serif; }
table { border-collapse: collapse; }
th, td { border-style: solid; border-width: 1px; padding: .5rem; }
tbody > tr:first-child { background-color: #eee; }
td:nth-child(2), td:nth-child(3) { word-break: break-all; }
</style>
</head>
<body>
<h1>Jobs</h1>
<p><a href="./">Go up</a></p>
<p>This page is read-only. A Cancel button here would send its form from the browser with an <code>Origin</code>
header, and this service refuses every such request, so there is none: cancel a job with the <code>cancel.json</code>
line in its Cancel column (for example with curl, from this machine).</p>
<table id="jobs">
<thead>
<tr>
${head}
</tr>
</thead>
${section("Pending", pending, now)}
${section("Running", running, now)}
${section("Finished", finished, now)}
</table>
</body>
</html>
`;
}
