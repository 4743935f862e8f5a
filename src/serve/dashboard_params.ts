/**
 * Turning what the dashboard's forms send into the parameters schedule.json and addschedule.json take, so a job
 * started from the page is checked by exactly the same code as one started with curl; and a finished job back into
 * the parameters that schedule it again.
 */
import { isAbsolute, relative, sep } from "node:path";
import { CONFINED_SETTINGS } from "./confine.ts";
import { ScheduleError } from "./schedule.ts";
import { SCHEDULE_PARAMS } from "./schedule_params.ts";
import { maskArgument, maskSetting } from "./secrets.ts";
import { TOKEN_FIELD } from "./csrf.ts";
import type { JobRecord } from "./types.ts";

/** Parameter names a spider argument typed in the form may not take: the forms' own fields say those. */
const RESERVED = new Set(["project", "spider", "setting", "jobid", "priority", "_version", ...SCHEDULE_PARAMS]);

/** Fields of the schedule form copied as they are (when not empty). */
const PLAIN_FIELDS = ["jobid", "priority", ...SCHEDULE_PARAMS] as const;

/** The non-empty lines of a text area, each trimmed. */
function lines(text: string | null): string[] {
  return (text ?? "").split("\n").map((line) => line.trim()).filter((line) => line !== "");
}

/** A `NAME=VALUE` line split at its first "=", or the refusal naming the line. */
function pair(line: string, what: string): [string, string] {
  const eq = line.indexOf("=");
  if (eq <= 0) throw new ScheduleError(`${what} ${JSON.stringify(line)} must be written NAME=VALUE`);
  return [line.slice(0, eq).trim(), line.slice(eq + 1)];
}

/**
 * The form's fields as schedule.json's (or addschedule.json's) parameters: `spider` is PROJECT/SPIDER, `settings` and
 * `args` hold one NAME=VALUE a line.
 */
export function formToParams(form: URLSearchParams): URLSearchParams {
  const params = new URLSearchParams();
  const chosen = form.get("spider") ?? "";
  const slash = chosen.indexOf("/");
  if (slash <= 0) throw new ScheduleError("pick a spider from the list");
  params.set("project", chosen.slice(0, slash));
  params.set("spider", chosen.slice(slash + 1));
  for (const name of PLAIN_FIELDS) {
    const value = form.get(name)?.trim();
    if (value) params.set(name, value);
  }
  for (const line of lines(form.get("settings"))) {
    pair(line, "the setting");
    params.append("setting", line);
  }
  for (const line of lines(form.get("args"))) {
    const [name, value] = pair(line, "the spider argument");
    if (RESERVED.has(name)) {
      throw new ScheduleError(`${name} can't be a spider argument here: the form has its own field for it`);
    }
    if (params.has(name)) throw new ScheduleError(`the spider argument ${name} is given twice`);
    params.append(name, value);
  }
  return params;
}

/**
 * What a refused form shows again: every field as typed but the token, except that a setting or argument whose value
 * holds a secret (what secrets.ts masks on every page) keeps its name with an empty value, named in `dropped`. A
 * password never goes back into a page, and an empty value, unlike a masked one, can't be sent again by mistake.
 */
export function keptValues(form: URLSearchParams): { values: Record<string, string>; dropped: string[] } {
  const dropped: string[] = [];
  const keep = (text: string, mask: (name: string, value: string) => string) =>
    text.split("\n").map((line) => {
      const eq = line.indexOf("=");
      if (eq <= 0) return line;
      const name = line.slice(0, eq).trim();
      const value = line.slice(eq + 1);
      if (mask(name, value) === value) return line;
      dropped.push(name);
      return `${line.slice(0, eq)}=`;
    }).join("\n");
  const values: Record<string, string> = {};
  for (const [name, value] of form) {
    if (name === TOKEN_FIELD) continue;
    values[name] = name === "settings" ? keep(value, maskSetting) : name === "args" ? keep(value, maskArgument) : value;
  }
  return { values, dropped };
}

/**
 * The parameters that schedule a finished job again: its project, spider, priority, settings and arguments as it was
 * given them, under a new id. A file setting was stored made absolute inside the project's data directory; it goes
 * back as the relative path schedule.json takes, and is confined again by the same check.
 */
export function rerunParams(job: JobRecord, dataDir: string): URLSearchParams {
  const params = new URLSearchParams({ project: job.project, spider: job.spider, priority: String(job.priority) });
  for (const setting of job.settings) {
    const eq = setting.indexOf("=");
    const key = setting.slice(0, eq);
    const value = setting.slice(eq + 1);
    const rel = relative(dataDir, value);
    const insideData = isAbsolute(value) && rel !== "" && !rel.startsWith(".." + sep) && !isAbsolute(rel);
    params.append("setting", CONFINED_SETTINGS.has(key) && insideData ? `${key}=${rel}` : setting);
  }
  for (const arg of job.args) {
    const eq = arg.indexOf("=");
    params.append(arg.slice(0, eq), arg.slice(eq + 1));
  }
  return params;
}
