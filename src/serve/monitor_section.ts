/**
 * The job page's monitors section: each monitor judged at the crawl's end, held or failed, with the failure's
 * message, so a job whose outcome is monitor_failed ("finished, but a monitor failed") says which rule and why.
 */
import { escapeHtml } from "./html.ts";
import { monitorVerdict } from "./job_outcome.ts";

/** The section, or "" for a crawl without monitors (or before its end: the verdict is written last). */
export function renderMonitorSection(stats: Record<string, unknown> | null): string {
  const verdict = monitorVerdict(stats);
  if (verdict === null) return "";
  const failed = new Map(verdict.failed.map(({ monitor, message }) => [monitor, message]));
  const rows = verdict.checked.map((monitor) => {
    const why = failed.get(monitor);
    const cell = why === undefined
      ? `<td class="outcome finished">held</td><td></td>`
      : `<td class="outcome failed">failed</td><td>${escapeHtml(why)}</td>`;
    return `<tr><td><code>${escapeHtml(monitor)}</code></td>${cell}</tr>`;
  }).join("\n");
  const summary = verdict.passed
    ? `<p id="monitors-verdict" class="outcome finished">Every monitor held.</p>`
    : `<p id="monitors-verdict" class="outcome failed">Finished, but ${verdict.failed.length} of ` +
      `${verdict.checked.length} monitors failed.</p>`;
  return `<h2>Monitors</h2>\n${summary}\n<table id="monitors"><tbody>\n${rows}\n</tbody></table>`;
}
