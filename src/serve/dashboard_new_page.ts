/**
 * `/new`: the forms that start a job now or add a periodic schedule. The spider is picked from a list of every
 * project's spiders (read as listspiders.json reads them); settings and spider arguments are typed one `KEY=VALUE` a
 * line, as `-s` and `-a` take them. A refused form comes back with what was typed and the reason on top, so nothing
 * typed is lost. The page does not reload itself (the status page does), so a half-filled form stays as it is.
 */
import { escapeHtml } from "./html.ts";
import { TOKEN_FIELD } from "./csrf.ts";
import { BUTTON_STYLE } from "./dashboard_forms.ts";
import { STYLE } from "./page_parts.ts";

/** One project's spiders, and the files of it that failed to load. */
export interface ProjectSpiders {
  project: string;
  spiders: string[];
  errors: { file: string; error: string }[];
}

/** Which form a refusal or kept values belong to. */
export type FormKind = "run" | "schedule";

export interface NewJobPageData {
  nodeName: string;
  projects: ProjectSpiders[];
  token: string;
  /** Whether the service has periodic schedules (the second form). */
  schedules: boolean;
  /** A refused form: which, why, and what was typed. */
  refused?: { form: FormKind; message: string; values: Record<string, string> };
  /** The time zone a schedule gets when none is typed. */
  defaultTimezone: string;
}

/** The value `<option>`s carry: PROJECT/SPIDER (neither name can hold a slash). */
export function spiderChoice(project: string, spider: string): string {
  return `${project}/${spider}`;
}

function spiderSelect(projects: readonly ProjectSpiders[], chosen: string | undefined): string {
  const groups = projects.map(({ project, spiders }) => {
    const options = spiders.map((spider) => {
      const value = spiderChoice(project, spider);
      return `<option value="${escapeHtml(value)}"${value === chosen ? " selected" : ""}>${
        escapeHtml(spider)
      }</option>`;
    }).join("");
    return `<optgroup label="${escapeHtml(project)}">${options}</optgroup>`;
  }).join("");
  return `<label>Spider <select name="spider" required>${groups}</select></label>`;
}

function text(name: string, label: string, values: Record<string, string>, hint = ""): string {
  return `<label>${label} <input type="text" name="${name}" value="${escapeHtml(values[name] ?? "")}"` +
    `${hint ? ` placeholder="${escapeHtml(hint)}"` : ""}></label>`;
}

function area(name: string, label: string, values: Record<string, string>, hint: string): string {
  return `<label>${label} <textarea name="${name}" rows="3" placeholder="${escapeHtml(hint)}">` +
    `${escapeHtml(values[name] ?? "")}</textarea></label>`;
}

function choice(name: string, label: string, options: string[], values: Record<string, string>): string {
  const given = values[name] ?? options[0];
  const list = options.map((option) =>
    `<option value="${escapeHtml(option)}"${option === given ? " selected" : ""}>${escapeHtml(option)}</option>`
  ).join("");
  return `<label>${label} <select name="${name}">${list}</select></label>`;
}

/** The job part both forms share: spider, settings, arguments, priority. */
function jobFields(data: NewJobPageData, values: Record<string, string>): string {
  return spiderSelect(data.projects, values.spider) +
    area("settings", "Settings, one KEY=VALUE a line (as -s takes them)", values, "max_items=500\nconcurrency=8") +
    area("args", "Spider arguments, one NAME=VALUE a line (as -a takes them)", values, "category=fiction") +
    text("priority", "Priority (higher starts first among waiting jobs)", values, "0");
}

function notice(data: NewJobPageData, form: FormKind): string {
  return data.refused?.form === form ? `<p class="notice" role="alert">${escapeHtml(data.refused.message)}</p>` : "";
}

/** The whole page. */
export function renderNewJobPage(data: NewJobPageData): string {
  const kept = (form: FormKind) => data.refused?.form === form ? data.refused.values : {};
  const token = `<input type="hidden" name="${TOKEN_FIELD}" value="${escapeHtml(data.token)}">`;
  const loadErrors = data.projects.flatMap(({ project, errors }) =>
    errors.map((e) => `<li>${escapeHtml(project)}: <code>${escapeHtml(e.file)}</code>: ${escapeHtml(e.error)}</li>`)
  );
  const none = data.projects.every(({ spiders }) => spiders.length === 0);
  const scheduleValues = kept("schedule");
  const scheduleForm = !data.schedules ? "" : `
<h2 id="add-schedule">Add a periodic schedule</h2>
${notice(data, "schedule")}<form class="job" id="schedule-form" method="post" action="/ui/addschedule">${token}
<fieldset><legend>When</legend>
${text("cron", "Cron expression (minute hour day month weekday, or @daily and the like)", scheduleValues, "0 3 * * *")}
${text("timezone", "Time zone", scheduleValues, data.defaultTimezone)}
${text("schedule", "Name (optional; a random one otherwise)", scheduleValues)}
${choice("missed", "A run missed while the service was down", ["run", "skip"], scheduleValues)}
${choice("overlap", "When the last run is still going", ["skip", "queue"], scheduleValues)}
</fieldset>
<fieldset><legend>What</legend>${jobFields(data, scheduleValues)}</fieldset>
<button type="submit">Add the schedule</button>
</form>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Schedule a job · netweir serve · ${escapeHtml(data.nodeName)}</title>
<style>${STYLE}${BUTTON_STYLE}</style>
</head>
<body>
<p><a href="/">← all jobs</a></p>
<h1>Schedule a job</h1>
${none ? `<p class="notice">No spiders to schedule: the projects this service serves have none.</p>` : ""}
${loadErrors.length > 0 ? `<p>Files that failed to load:</p><ul class="load-errors">${loadErrors.join("")}</ul>` : ""}
<h2 id="run">Run once, now</h2>
${notice(data, "run")}<form class="job" id="run-form" method="post" action="/ui/schedule">${token}
<fieldset><legend>What</legend>${jobFields(data, kept("run"))}
${text("jobid", "Job id (optional; a random one otherwise)", kept("run"))}</fieldset>
<button type="submit">Run the job</button>
</form>
${scheduleForm}
</body>
</html>
`;
}
