/**
 * The page of one job, `/job/PROJECT/JOB`: where it is and how it ended, its stats so far, a chart of pages and items
 * over time (chart.ts), pages per second now, the end of its log and its last items, and what it was given, secrets
 * masked. Server-rendered like the status page: no script, nothing from elsewhere; while the job waits or runs the
 * page reloads itself every 5 seconds, and with actions (the dashboard) its log is a frame of the live tail
 * (dashboard_pages.ts), which reloads every second, and it has a Cancel or Re-run button.
 */
import { renderMonitorSection } from "./monitor_section.ts";
import { pagesPerSecondNow, renderChart, seriesOf } from "./chart.ts";
import { maskSecrets } from "../log.ts";
import { escapeHtml } from "./html.ts";
import { duration, fileLinks, jobPageUrl, number, STYLE, time } from "./page_parts.ts";
import { maskArgument, maskedPairs, maskSetting, maskStrings } from "./secrets.ts";
import { actionForms, BUTTON_STYLE, jobButtons, type PageActions } from "./dashboard_forms.ts";
import type { JobRecord } from "./types.ts";

/** What the page shows, read by the app from the job's files. */
export interface JobPageData {
  nodeName: string;
  job: JobRecord;
  /** The stats file (with its series), or null before the crawl wrote one. */
  stats: Record<string, unknown> | null;
  /** The end of the log, from its first whole line, and whether it is cut. */
  logTail: { text: string; cut: boolean };
  /** The last few items, one JSON text each. */
  lastItems: string[];
  now?: number;
  /** The session's token, for the buttons and the live tail; without it the page has neither. */
  actions?: PageActions;
}

/** How many lines of the log the page shows at most (of the bytes the app read). */
export const LOG_TAIL_LINES = 60;

/** The stats worth a row, in this order; the rest are in jobstats.json. */
const STAT_ROWS = ["pages", "items", "errors", "requests", "retries", "bytes", "dropped", "finish_reason"];

function facts(rows: [string, string][]): string {
  return `<dl class="facts">${rows.map(([name, value]) => `<dt>${name}</dt><dd>${value}</dd>`).join("")}</dl>`;
}

function statValue(value: unknown): string {
  if (typeof value === "number") return number(value);
  if (value === null || value === undefined) return `<span class="dim">–</span>`;
  if (typeof value === "object") return `<code>${escapeHtml(JSON.stringify(value))}</code>`;
  return escapeHtml(value);
}

function pairsTable(title: string, pairs: Record<string, string>): string {
  const entries = Object.entries(pairs);
  if (entries.length === 0) return `<h2>${title}</h2><p class="dim">none</p>`;
  const rows = entries.map(([key, value]) =>
    `<tr><td><code>${escapeHtml(key)}</code></td><td><code>` +
    `${escapeHtml(value)}</code></td></tr>`
  ).join("\n");
  return `<h2>${title}</h2>\n<table><tbody>\n${rows}\n</tbody></table>`;
}

/** The whole page. */
export function renderJobPage(data: JobPageData): string {
  const { job } = data;
  const now = data.now ?? Date.now();
  const stats = maskStrings(data.stats) as Record<string, unknown> | null;
  const series = seriesOf(stats);
  const live = job.state !== "finished";
  const state = job.state === "finished" ? job.outcome ?? "finished" : job.state;
  const runtime = job.startedAt === null ? "–" : duration(((job.endedAt ?? now) - job.startedAt) / 1000);
  const rate = pagesPerSecondNow(series);
  const statRows: [string, string][] = STAT_ROWS.filter((key) => stats && key in stats)
    .map((key) => [escapeHtml(key.replaceAll("_", " ")), statValue(stats![key])]);
  const logLines = data.logTail.text.split("\n");
  if (logLines.at(-1) === "") logLines.pop();
  const shownLog = logLines.slice(-LOG_TAIL_LINES);
  const cut = data.logTail.cut || shownLog.length < logLines.length;
  const items = data.lastItems.map((line) => escapeHtml(maskStrings(prettyJson(line)))).join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${live ? `<meta http-equiv="refresh" content="5">\n` : ""}<title>${escapeHtml(job.id)} · netweir serve · ${
    escapeHtml(data.nodeName)
  }</title>
<style>${STYLE}${BUTTON_STYLE}</style>
</head>
<body>
<p><a href="/">← all jobs</a></p>
<h1>Job <code>${escapeHtml(job.id)}</code> <span class="outcome ${escapeHtml(state)}">${escapeHtml(state)}</span></h1>
${data.actions ? `${actionForms(data.actions, "job")}\n<p class="actions">${jobButtons(job, data.actions)}</p>` : ""}
${
    facts([
      ["project", escapeHtml(job.project)],
      ["spider", escapeHtml(job.spider)],
      ["scheduled", time(job.createdAt)],
      ["started", time(job.startedAt) || `<span class="dim">not yet</span>`],
      ["ended", time(job.endedAt) || `<span class="dim">–</span>`],
      ["runtime", escapeHtml(runtime)],
      ["pages/s now", `<span id="rate">${rate === undefined ? "–" : escapeHtml(rate.toFixed(1))}</span>`],
      ["pid", escapeHtml(job.pid ?? "–")],
      ["files", fileLinks(job) || `<span class="dim">none</span>`],
    ])
  }
<h2>Stats ${live ? `<span class="dim">so far (rewritten every 5 s)</span>` : ""}</h2>
${stats ? facts(statRows) : `<p class="dim">No stats yet: the crawl writes its first ones as it starts.</p>`}
${renderMonitorSection(stats)}
<h2>Pages and items over time</h2>
${renderChart(series)}
<h2>Last items <span class="count">${number(stats?.items)} in all</span></h2>
${items ? `<pre id="items">${items}</pre>` : `<p class="dim">none yet</p>`}
<h2>Log ${cut || live ? `<span class="dim">(its end; the whole log is under files above)</span>` : ""}</h2>
${
    live && data.actions
      ? `<iframe class="tail" title="the end of the log, live" src="${escapeHtml(`${jobPageUrl(job)}/tail`)}"></iframe>`
      : shownLog.length > 0
      ? `<pre id="log">${escapeHtml(maskSecrets(shownLog.join("\n")))}</pre>`
      : `<p class="dim">nothing written yet</p>`
  }
${pairsTable("Settings", maskedPairs(job.settings, maskSetting))}
${pairsTable("Arguments", maskedPairs(job.args, maskArgument))}
${live ? `<p class="dim">This page reloads every 5 seconds while the job waits or runs.</p>` : ""}
</body>
</html>
`;
}

/** An item line as indented JSON when it parses, as it is when it doesn't. */
function prettyJson(line: string): string {
  try {
    return JSON.stringify(JSON.parse(line), null, 1).replace(/\n\s*/g, " ");
  } catch {
    return line;
  }
}
