/**
 * schedule.json's checks: everything a job could be refused for is refused now, with a message saying what, rather
 * than as a failed job later. What comes out is a {@link NewJob} the job service can run as it is.
 */
import { SettingsError } from "../errors.ts";
import { resolveCrawlSettings } from "../settings/check.ts";
import { Settings, type SettingsInit } from "../settings/settings.ts";
import { findSetting } from "../settings/table.ts";
import { spiderAttributeAllowed } from "../spider/callbacks.ts";
import { ConfinementError, confinePath, isConfined } from "./confine.ts";
import { jobLimitProblem, MAX_JOB_PAIRS, pairLimitProblem, tooManyProblem } from "./job_limits.ts";
import { isServeName, NAME_RULE } from "./names.ts";
import type { NewJob, ProjectRegistry, ProjectSpider, ServePaths } from "./types.ts";

/** A request schedule.json refuses; the message is the answer's "message". */
export class ScheduleError extends Error {
  override name = "ScheduleError";
}

/** Settings a job may not set over HTTP at all, and why. */
const SERVICE_SETTINGS: Readonly<Record<string, string>> = {
  stats_file: "the service keeps each job's stats itself (see jobstats.json)",
  browser_path: "it names a program to run; set it in the spider's own settings",
};

/** Seconds: how old the stats jobstats.json gives for a running job may be, at most. */
const MAX_STATS_AGE = 5;

/** Parameters schedule.json reads itself; every other one is a spider argument. */
const OWN_PARAMS = new Set(["project", "spider", "setting", "jobid", "priority", "_version"]);

/** What schedule needs from the service. */
export interface ScheduleContext {
  registry: ProjectRegistry;
  paths: ServePaths;
}

/** scrapyd's words for a missing parameter. */
export function requiredParam(params: URLSearchParams, name: string): string {
  const value = params.get(name);
  if (value === null || value === "") throw new ScheduleError(`'${name}' parameter is required`);
  return value;
}

/** A parameter naming a project, spider or job, refused with the parameter's name when it breaks the name rule. */
function checkedName(param: string, value: string): string {
  if (!isServeName(value)) {
    throw new ScheduleError(`'${param}' parameter is invalid: ${JSON.stringify(value)} must be ${NAME_RULE}`);
  }
  return value;
}

/** A required project, spider or job name: missing and malformed are refused alike, before anything looks it up. */
export function requiredName(params: URLSearchParams, name: string): string {
  return checkedName(name, requiredParam(params, name));
}

/** An optional project or job name: undefined when absent or empty, refused when malformed. */
export function optionalName(params: URLSearchParams, name: string): string | undefined {
  const value = params.get(name);
  return value === null || value === "" ? undefined : checkedName(name, value);
}

/** A new job id: 32 hex digits, like scrapyd's. */
function randomJobId(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

function checkJobId(params: URLSearchParams): string {
  const given = params.get("jobid");
  if (given === null || given === "") return randomJobId();
  if (!isServeName(given)) {
    throw new ScheduleError(`jobid ${JSON.stringify(given)} is invalid: it must be ${NAME_RULE}`);
  }
  return given;
}

function checkPriority(params: URLSearchParams): number {
  const given = params.get("priority");
  if (given === null || given.trim() === "") return 0;
  const value = Number(given);
  if (!Number.isFinite(value)) throw new ScheduleError(`priority is invalid: ${JSON.stringify(given)} is not a number`);
  return value;
}

/** The spider called `name`, or an error naming the ones there are (and the files that failed to load). */
async function findSpider(registry: ProjectRegistry, project: string, name: string): Promise<ProjectSpider> {
  const { spiders, errors } = await registry.spiders(project);
  const matches = spiders.filter((spider) => spider.name === name);
  if (matches.length === 1) return matches[0];
  if (matches.length > 1) {
    const files = matches.map((spider) => spider.file).join(", ");
    throw new ScheduleError(`spider '${name}' is defined more than once in project '${project}' (${files})`);
  }
  const known = spiders.map((spider) => spider.name);
  let message = `spider '${name}' not found in project '${project}' (` +
    (known.length > 0 ? `its spiders: ${known.join(", ")})` : "it has no spiders)");
  if (errors.length > 0) {
    message += `; files that failed to load: ${errors.map((e) => `${e.file}: ${e.error}`).join("; ")}`;
  }
  throw new ScheduleError(message);
}

/** Each `setting=KEY=VALUE` checked on its own, file settings confined and made absolute. */
async function checkSettingPairs(pairs: string[], dataDir: string): Promise<string[]> {
  const checked: string[] = [];
  for (const pair of pairs) {
    // Unknown name, wrong type, no "=": SettingsError with the setting's name.
    const layer = Settings.fromPairs([pair]);
    const key = layer.keys()[0];
    const cli = findSetting(key)!.cli;
    if (Object.hasOwn(SERVICE_SETTINGS, cli)) {
      throw new ScheduleError(`setting ${cli} can't be set over HTTP: ${SERVICE_SETTINGS[cli]}`);
    }
    const value = layer.given(key);
    if (typeof value === "string" && isConfined(cli, value)) {
      checked.push(`${cli}=${await confinePath(cli, value, dataDir)}`);
    } else {
      checked.push(pair);
    }
  }
  return checked;
}

/**
 * The spider arguments (every parameter schedule does not read itself, first value of each) and the settings, as
 * "NAME=VALUE" pairs, in one pass over the parameters, and refused when there are too many or one is too long: before
 * anything else looks at them, and as soon as one too many is seen, so a body of 116,000 arguments costs less than one
 * pass (one lookup by name in so many parameters takes about 10 ms, one check of a name about 80 µs).
 */
function splitParams(params: URLSearchParams): { args: string[]; settings: string[] } {
  const args = new Map<string, string>();
  const settings: string[] = [];
  for (const [name, value] of params) {
    if (name === "setting") {
      if (settings.push(value) > MAX_JOB_PAIRS) throw new ScheduleError(tooManyProblem("setting"));
    } else if (!OWN_PARAMS.has(name) && !args.has(name)) {
      if (args.set(name, value).size > MAX_JOB_PAIRS) throw new ScheduleError(tooManyProblem("spider argument"));
    }
  }
  const pairs = [...args].map(([name, value]) => `${name}=${value}`);
  const tooMuch = pairLimitProblem("spider argument", pairs) ?? pairLimitProblem("setting", settings);
  if (tooMuch) throw new ScheduleError(tooMuch);
  return { args: pairs, settings };
}

/** Each spider argument's name checked (the same rule as -a); a check costs a Spider, so it comes after the limits. */
function checkArgumentNames(pairs: readonly string[]): void {
  for (const pair of pairs) {
    const problem = spiderAttributeAllowed(pair.slice(0, pair.indexOf("=")));
    if (problem) throw new ScheduleError(problem);
  }
}

/**
 * Checks a schedule.json request and returns the job to queue.
 *
 * @param params the query string and form body together.
 * @throws ScheduleError for a missing or unknown project or spider, a bad jobid, priority or spider argument, a
 *   file setting outside the data directory, or more or longer arguments or settings than job_limits.ts allows; SettingsError (with the setting's name) for a setting that does not
 *   exist, has the wrong type, or fails a start-of-crawl check on top of the spider's own settings.
 */
export async function checkSchedule(params: URLSearchParams, context: ScheduleContext): Promise<NewJob> {
  const given = splitParams(params);
  const projectName = requiredName(params, "project");
  const spiderName = requiredName(params, "spider");
  const project = context.registry.get(projectName);
  if (!project) throw new ScheduleError(`project '${projectName}' not found`);
  const version = params.get("_version");
  if (version !== null && version !== "") {
    throw new ScheduleError(`version '${version}' not found (netweir serve has no versions)`);
  }
  const id = checkJobId(params);
  const priority = checkPriority(params);
  const args = given.args;
  checkArgumentNames(args);
  let settings: string[];
  try {
    settings = await checkSettingPairs(given.settings, context.paths.dataDir(project.name));
  } catch (error) {
    if (error instanceof ConfinementError) throw new ScheduleError(error.message);
    throw error;
  }
  // Only now the spider files are read (a process each): everything refused above was cheaper to refuse.
  const spider = await findSpider(context.registry, project.name, spiderName);
  // Its name is the `spider` parameter, which has passed the name rule: it can be a folder name.
  // As `-s` applies them: over the spider's own settings, with its own profiles known.
  let resolved;
  const overrides = Settings.fromPairs(settings);
  try {
    resolved = resolveCrawlSettings({
      spider: new Settings(spider.settings),
      profiles: spider.profiles as Record<string, SettingsInit>,
      overrides,
    });
  } catch (error) {
    // A malformed queue URL or key is a TypeError from the queue's own parser: still the request's fault.
    if (error instanceof TypeError || error instanceof RangeError) throw new ScheduleError(error.message);
    throw error;
  }
  // jobstats.json promises stats at most MAX_STATS_AGE seconds old: refused when asked for over HTTP, and capped
  // when the spider's own settings (or a profile) ask for longer.
  if (resolved.statsInterval > MAX_STATS_AGE) {
    if (overrides.has("statsInterval")) {
      throw new ScheduleError(
        `setting stats_interval can't be above ${MAX_STATS_AGE} here: jobstats.json gives stats at most ` +
          `${MAX_STATS_AGE} seconds old`,
      );
    }
    settings.push(`stats_interval=${MAX_STATS_AGE}`);
  }
  // The spider's (or its profile's) alert settings go with the job: the runner calls its webhook without reading
  // spider files again, and the job's settings are then the one place a job's webhook comes from.
  if (resolved.alertWebhook !== null && !overrides.has("alertWebhook")) {
    settings.push(`alert_webhook=${resolved.alertWebhook}`);
  }
  if (resolved.alertStart && !overrides.has("alertStart")) settings.push("alert_start=true");
  // Again as the job will be stored (file settings made absolute): the runner refuses to start a job past them.
  const stored = jobLimitProblem({ settings, args });
  if (stored) throw new ScheduleError(stored);
  return {
    id,
    project: project.name,
    spider: spider.name,
    file: spider.file,
    cwd: project.dir,
    priority,
    settings,
    args,
  };
}

/** Whether an error is one schedule.json answers with its message (the request's fault, not the service's). */
export function isRefusal(error: unknown): error is Error {
  return error instanceof ScheduleError || error instanceof SettingsError;
}
