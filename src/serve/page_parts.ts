/** Pieces the status page and the job page share: numbers, times, durations, links and the style sheet. */
import { escapeHtml } from "./html.ts";
import { itemsUrl, logUrl, scrapydTime } from "./scrapyd_format.ts";
import type { JobRecord } from "./types.ts";

/** Seconds as "1 h 02 min", "3 min 05 s" or "12 s". */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const pad = (n: number) => String(n).padStart(2, "0");
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${pad(Math.floor(s / 60) % 60)} min`;
  if (s >= 60) return `${Math.floor(s / 60)} min ${pad(s % 60)} s`;
  return `${s} s`;
}

/** A time to the second, local, as scrapyd shows times; "" for none. */
export function time(epochMs: number | null): string {
  return epochMs === null ? "" : escapeHtml(scrapydTime(epochMs)!.slice(0, 19));
}

/** A number with thousands separators, or a dash when it isn't one. */
export function number(value: unknown): string {
  return typeof value === "number" ? escapeHtml(value.toLocaleString("en")) : "–";
}

/** Where the job page of a job is. */
export function jobPageUrl(job: Pick<JobRecord, "project" | "id">): string {
  return `/job/${encodeURIComponent(job.project)}/${encodeURIComponent(job.id)}`;
}

/** Links to a job's log and items; none for a job cancelled before it started (it has neither). */
export function fileLinks(job: JobRecord): string {
  if (job.startedAt === null) return "";
  return `<a href="${escapeHtml(logUrl(job))}">log</a> · <a href="${escapeHtml(itemsUrl(job))}">items</a>`;
}

/** The style sheet of both pages (inline: the CSP allows inline style and nothing from elsewhere). */
export const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 72em; padding: 0 1em; color: #222; }
h1 { font-size: 1.4em; margin-bottom: .2em; } h2 { font-size: 1.1em; margin: 1.6em 0 .4em; }
.count { color: #666; font-weight: normal; } .dim { color: #777; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: .3em .6em; vertical-align: top; }
thead th { border-bottom: 2px solid #ccc; font-weight: 600; } tbody tr { border-bottom: 1px solid #eee; }
code, pre { font-size: .92em; } a { color: #0645ad; }
pre { background: #f6f8fa; padding: .6em .8em; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
.outcome { font-weight: 600; } .finished { color: #1a7f37; } .failed, .lost { color: #c62828; }
.cancelled, .monitor_failed { color: #9a6700; } .running { color: #0645ad; }
.filters { margin: .8em 0; } .filters span { margin-right: 1.4em; } .filters a.on { font-weight: 700; color: inherit; }
.pager { margin: .6em 0; }
.chart .frame { fill: none; stroke: #ccc; } .chart .axis, .chart .legend { font-size: 11px; fill: #666; }
.chart polyline { fill: none; stroke-width: 2; } .chart .pages { stroke: #0645ad; } .chart .items { stroke: #1a7f37; }
.chart .pages-legend { fill: #0645ad; } .chart .items-legend { fill: #1a7f37; }
dl.facts { display: grid; grid-template-columns: max-content auto; gap: .2em 1.2em; } dl.facts dt { color: #666; }
dl.facts dd { margin: 0; }
@media (prefers-color-scheme: dark) {
  body { background: #16181c; color: #ddd; } a { color: #8ab4f8; } thead th { border-color: #444; }
  tbody tr { border-color: #2a2d33; } .dim, .count { color: #999; } pre { background: #22252b; }
}`;
