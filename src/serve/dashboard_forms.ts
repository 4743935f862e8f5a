/**
 * The dashboard's buttons, as the status page and the job page show them: each submits one of the page's forms, which
 * POST to an action under /ui/ (dashboard_routes.ts) with the session's token. No script: a button is a form's, so it
 * works with the pages' CSP (`form-action 'self'`, no script-src) and without JavaScript.
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

/** The actions a row's button may post to. */
const ROW_ACTIONS = ["cancel", "rerun", "pauseschedule", "resumeschedule", "delschedule"] as const;
type RowAction = typeof ROW_ACTIONS[number];

/**
 * The page's action forms, once each, empty but for the token and where to go back to. A row's button names its form
 * (`form="ui-rerun"`) and carries its own target as its name and value, which the browser sends with the form's
 * fields: one token per page rather than one per row, so a page of 150 buttons stays small.
 */
export function actionForms(actions: PageActions | undefined, back: Back): string {
  if (!actions) return "";
  const hidden = `<input type="hidden" name="${TOKEN_FIELD}" value="${escapeHtml(actions.token)}">` +
    `<input type="hidden" name="back" value="${back}">`;
  return ROW_ACTIONS.map((action) =>
    `<form id="ui-${action}" class="action" method="post" action="/ui/${action}">${hidden}</form>`
  ).join("\n");
}

/** A button posting `target` (PROJECT/NAME: neither name can hold a slash) to one of the page's action forms. */
function button(action: RowAction, target: string, label: string): string {
  return `<button type="submit" form="ui-${action}" class="${action}" name="target" value="${escapeHtml(target)}">` +
    `${escapeHtml(label)}</button>`;
}

/** Cancel for a waiting or running job, re-run for a finished one; nothing without actions. */
export function jobButtons(job: JobRecord, actions: PageActions | undefined): string {
  if (!actions) return "";
  const target = `${job.project}/${job.id}`;
  if (job.state === "finished") return button("rerun", target, "Re-run");
  return button("cancel", target, job.state === "pending" ? "Cancel" : "Cancel (stop like Ctrl-C)");
}

/** Pause or resume, and delete, for a schedule. */
export function scheduleButtons(schedule: ScheduleRecord, actions: PageActions | undefined): string {
  if (!actions) return "";
  const target = `${schedule.job.project}/${schedule.id}`;
  const toggle = schedule.paused
    ? button("resumeschedule", target, "Resume")
    : button("pauseschedule", target, "Pause");
  return `${toggle} ${button("delschedule", target, "Delete")}`;
}

/** The link to the page with the forms that start a job or add a schedule. */
export function newJobLink(actions: PageActions | undefined): string {
  return actions ? `<p class="actions"><a class="button" href="/new">Schedule a job or add a schedule</a></p>` : "";
}

/** The style of the buttons, added to the pages' sheet. */
export const BUTTON_STYLE = `
button.cancel, button.rerun, button.pauseschedule, button.resumeschedule, button.delschedule, a.button { font: inherit; cursor: pointer;
  padding: .15em .7em; border: 1px solid #999; border-radius: 4px; background: #f4f4f4; color: #222;
  text-decoration: none; display: inline-block; }
button.cancel, button.delschedule { border-color: #c62828; color: #c62828; }
.notice { padding: .5em .8em; border-left: 4px solid #c62828; background: #fdecea; color: #222; }
form.job fieldset { border: 1px solid #ccc; margin: 0 0 1em; } form.job label { display: block; margin: .4em 0; }
form.job textarea, form.job input[type=text], form.job select { font: inherit; width: 100%; box-sizing: border-box; }
iframe.tail { width: 100%; height: 28em; border: 1px solid #ccc; }
@media (prefers-color-scheme: dark) {
  button.cancel, button.rerun, button.pauseschedule, button.resumeschedule, button.delschedule, a.button {
    background: #2a2d33; color: #ddd; }
  .notice { background: #3b1f1f; color: #ddd; }
}`;
