/**
 * The page at `/`: every job at a glance, with links to its log and items and, for running jobs, their stats so
 * far. Server-rendered and reloaded every 5 seconds (as often as a job writes its stats); no script, no external
 * asset, and every text from a job or a spider escaped.
 */
import { escapeHtml } from "./html.ts";
import { itemsUrl, logUrl, scrapydTime } from "./scrapyd_format.ts";
import type { JobRecord } from "./types.ts";

/** What the page shows. */
export interface StatusPageData {
  nodeName: string;
  projects: string[];
  jobs: readonly JobRecord[];
  /** Stats of running jobs by job id (null while a job has written none). */
  stats: ReadonlyMap<string, Record<string, unknown> | null>;
}

/** Seconds as "1 h 02 min", "3 min 05 s" or "12 s". */
function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const pad = (n: number) => String(n).padStart(2, "0");
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${pad(Math.floor(s / 60) % 60)} min`;
  if (s >= 60) return `${Math.floor(s / 60)} min ${pad(s % 60)} s`;
  return `${s} s`;
}

function time(epochMs: number | null): string {
  return epochMs === null ? "" : escapeHtml(scrapydTime(epochMs)!.slice(0, 19));
}

function links(job: JobRecord): string {
  // A job cancelled before it started has neither log nor items.
  if (job.startedAt === null) return "";
  return `<a href="${escapeHtml(logUrl(job))}">log</a> · <a href="${escapeHtml(itemsUrl(job))}">items</a>`;
}

function number(value: unknown): string {
  return typeof value === "number" ? escapeHtml(value.toLocaleString("en")) : "–";
}

function statsCell(stats: Record<string, unknown> | null | undefined): string {
  if (!stats) return `<span class="dim">no stats yet</span>`;
  const elapsed = typeof stats.elapsed_seconds === "number" ? duration(stats.elapsed_seconds) : "–";
  return `${number(stats.pages)} pages · ${number(stats.items)} items · ${number(stats.errors)} errors · ` +
    `${escapeHtml(elapsed)}`;
}

function jobCells(job: JobRecord): string {
  return `<td><code>${escapeHtml(job.id)}</code></td><td>${escapeHtml(job.project)}</td>` +
    `<td>${escapeHtml(job.spider)}</td>`;
}

function table(title: string, headings: string[], rows: string[]): string {
  const head = headings.map((heading) => `<th>${heading}</th>`).join("");
  const body = rows.length > 0 ? rows.join("\n") : `<tr><td colspan="${headings.length}" class="dim">none</td></tr>`;
  return `<h2>${title} <span class="count">${rows.length}</span></h2>\n` +
    `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 72em; padding: 0 1em; color: #222; }
h1 { font-size: 1.4em; margin-bottom: .2em; } h2 { font-size: 1.1em; margin: 1.6em 0 .4em; }
.count { color: #666; font-weight: normal; } .dim { color: #777; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: .3em .6em; }
thead th { border-bottom: 2px solid #ccc; font-weight: 600; } tbody tr { border-bottom: 1px solid #eee; }
code { font-size: .92em; } a { color: #0645ad; }
.outcome { font-weight: 600; } .finished { color: #1a7f37; } .failed, .lost { color: #c62828; }
.cancelled { color: #9a6700; }
@media (prefers-color-scheme: dark) {
  body { background: #16181c; color: #ddd; } a { color: #8ab4f8; } thead th { border-color: #444; }
  tbody tr { border-color: #2a2d33; } .dim, .count { color: #999; }
}`;

/** The whole page, as HTML. */
export function renderStatusPage(data: StatusPageData): string {
  const running = data.jobs.filter((job) => job.state === "running");
  const pending = data.jobs.filter((job) => job.state === "pending")
    .sort((a, b) => b.priority - a.priority || a.createdAt - b.createdAt);
  const finished = data.jobs.filter((job) => job.state === "finished")
    .sort((a, b) => (b.endedAt ?? b.createdAt) - (a.endedAt ?? a.createdAt));
  const projects = data.projects.length > 0
    ? data.projects.map((name) => `<code>${escapeHtml(name)}</code>`).join(", ")
    : `<span class="dim">none</span>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="5">
<title>netweir serve · ${escapeHtml(data.nodeName)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>netweir serve <span class="dim">on ${escapeHtml(data.nodeName)}</span></h1>
<nav><a href="/jobs">Jobs</a> · <a href="/logs/">Logs</a> · <a href="/items/">Items</a>
<span class="dim">(scrapyd's pages, for dashboards that read them)</span></nav>
<p>${running.length} running · ${pending.length} waiting · ${finished.length} finished. Projects: ${projects}.
<span class="dim">This page reloads every 5 seconds.</span></p>
${
    table(
      "Running",
      ["job", "project", "spider", "started", "stats so far", ""],
      running.map((job) =>
        `<tr>${jobCells(job)}<td>${time(job.startedAt)}</td><td>${statsCell(data.stats.get(job.id))}</td>` +
        `<td>${links(job)}</td></tr>`
      ),
    )
  }
${
    table(
      "Waiting",
      ["job", "project", "spider", "priority", "scheduled"],
      pending.map((job) =>
        `<tr>${jobCells(job)}<td>${escapeHtml(job.priority)}</td><td>${time(job.createdAt)}</td></tr>`
      ),
    )
  }
${
    table(
      "Finished",
      ["job", "project", "spider", "outcome", "started", "ended", ""],
      finished.map((job) =>
        `<tr>${jobCells(job)}<td class="outcome ${escapeHtml(job.outcome ?? "")}">${escapeHtml(job.outcome ?? "")}` +
        `</td><td>${time(job.startedAt)}</td><td>${time(job.endedAt)}</td><td>${links(job)}</td></tr>`
      ),
    )
  }
</body>
</html>
`;
}
