/**
 * The dashboard's buttons, as the status page and the job page show them: each is a small form that POSTs to an
 * action under /ui/ (dashboard_routes.ts) with the session's token. No script: a button is a form, so it works with
 * the pages' CSP (`form-action 'self'`, no script-src) and without JavaScript.
 */
import { escapeHtml } from "./html.ts";
import { TOKEN_FIELD } from "./csrf.ts";
import type { ScheduleRecord } from "./schedule_store.ts";
import type { JobRecord } from "./types.ts";

/** What a page needs to show buttons: the token of the browser's session. Without it a page shows none. */
export interface PageActions {
  token: string;
}

/** Where an action sends the browser back to: the list, or the job's own page. */
export type Back = "list" | "job";

/** The hidden fields and the button of one action form. */
function actionForm(action: string, fields: Record<string, string>, label: string, actions: PageActions): string {
  const hidden = Object.entries({ ...fields, [TOKEN_FIELD]: actions.token })
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join("");
  return `<form class="action" method="post" action="/ui/${action}">${hidden}` +
    `<button type="submit" class="${escapeHtml(action)}">${escapeHtml(label)}</button></form>`;
}

/** Cancel for a waiting or running job, re-run for a finished one; nothing without actions. */
export function jobButtons(job: JobRecord, actions: PageActions | undefined, back: Back): string {
  if (!actions) return "";
  const fields = { project: job.project, job: job.id, back };
  if (job.state === "finished") return actionForm("rerun", fields, "Re-run", actions);
  const label = job.state === "pending" ? "Cancel" : "Cancel (stop like Ctrl-C)";
  return actionForm("cancel", fields, label, actions);
}

/** Pause or resume, and delete, for a schedule. */
export function scheduleButtons(schedule: ScheduleRecord, actions: PageActions | undefined): string {
  if (!actions) return "";
  const fields = { project: schedule.job.project, schedule: schedule.id };
  const toggle = schedule.paused
    ? actionForm("resumeschedule", fields, "Resume", actions)
    : actionForm("pauseschedule", fields, "Pause", actions);
  return toggle + actionForm("delschedule", fields, "Delete", actions);
}

/** The link to the page with the forms that start a job or add a schedule. */
export function newJobLink(actions: PageActions | undefined): string {
  return actions ? `<p class="actions"><a class="button" href="/new">Schedule a job or add a schedule</a></p>` : "";
}

/** The style of the buttons, added to the pages' sheet. */
export const BUTTON_STYLE = `
form.action { display: inline; margin: 0 .3em 0 0; } form.action button, a.button { font: inherit; cursor: pointer;
  padding: .15em .7em; border: 1px solid #999; border-radius: 4px; background: #f4f4f4; color: #222;
  text-decoration: none; display: inline-block; }
form.action button.cancel, form.action button.delschedule { border-color: #c62828; color: #c62828; }
.notice { padding: .5em .8em; border-left: 4px solid #c62828; background: #fdecea; color: #222; }
form.job fieldset { border: 1px solid #ccc; margin: 0 0 1em; } form.job label { display: block; margin: .4em 0; }
form.job textarea, form.job input[type=text], form.job select { font: inherit; width: 100%; box-sizing: border-box; }
iframe.tail { width: 100%; height: 28em; border: 1px solid #ccc; }
@media (prefers-color-scheme: dark) {
  form.action button, a.button { background: #2a2d33; color: #ddd; } .notice { background: #3b1f1f; color: #ddd; }
}`;
