/**
 * addschedule.json's checks (and --schedule's, which becomes the same parameters): the job part is checked exactly
 * as schedule.json checks a job, on top of the spider's own settings, so a schedule that could never run is refused
 * when it is added, not at 3 in the morning. The schedule's own parameters are read here and taken out first.
 */
import { localTimeZone, parseCron } from "./cron.ts";
import { isServeName, NAME_RULE } from "./names.ts";
import { checkSchedule, type ScheduleContext, ScheduleError } from "./schedule.ts";
import type { MissedRule, NewSchedule, OverlapRule } from "./schedule_store.ts";

/** Parameters addschedule.json reads itself: they are not spider arguments of the schedule's jobs. */
export const SCHEDULE_PARAMS = ["schedule", "cron", "timezone", "missed", "overlap"] as const;

/** A schedule's name leaves room for the due time in the ids of the jobs it fires ("-20261204T030000Z"). */
const MAX_SCHEDULE_NAME = 100;

function choice<T extends string>(params: URLSearchParams, name: string, allowed: readonly T[], fallback: T): T {
  const given = params.get(name);
  if (given === null || given === "") return fallback;
  if (!(allowed as readonly string[]).includes(given)) {
    throw new ScheduleError(`'${name}' parameter is invalid: ${JSON.stringify(given)} is not ${allowed.join(" or ")}`);
  }
  return given as T;
}

/** The schedule's name: as given, or a random one. */
function scheduleName(params: URLSearchParams): string {
  const given = params.get("schedule");
  if (given === null || given === "") return `s${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  if (!isServeName(given) || given.length > MAX_SCHEDULE_NAME) {
    throw new ScheduleError(
      `'schedule' parameter is invalid: ${JSON.stringify(given)} must be ${
        NAME_RULE.replace(/\(at most \d+\)/, `(at most ${MAX_SCHEDULE_NAME})`)
      }`,
    );
  }
  return given;
}

/**
 * Checks an addschedule.json request: project, spider, setting, priority and spider arguments as schedule.json takes
 * them (jobid refused: each run gets its own), plus `cron` (required), `timezone`, `schedule` (its name), `missed`
 * (run or skip) and `overlap` (skip or queue).
 */
export async function checkAddSchedule(
  params: URLSearchParams,
  context: ScheduleContext,
  origin: "http" | "cli" = "http",
): Promise<NewSchedule> {
  const cron = params.get("cron");
  if (cron === null || cron.trim() === "") throw new ScheduleError("'cron' parameter is required");
  const jobid = params.get("jobid");
  if (jobid !== null && jobid !== "") {
    throw new ScheduleError("'jobid' can't be given to a schedule: each run's id is the schedule's name and its time");
  }
  const id = scheduleName(params);
  const given = params.get("timezone");
  const timezone = given === null || given === "" ? localTimeZone() : given;
  let timing;
  try {
    timing = parseCron(cron, timezone);
  } catch (error) {
    throw new ScheduleError((error as Error).message);
  }
  const missed = choice<MissedRule>(params, "missed", ["run", "skip"], "run");
  const overlap = choice<OverlapRule>(params, "overlap", ["skip", "queue"], "skip");
  const jobParams = new URLSearchParams(
    [...params].filter(([name]) => !(SCHEDULE_PARAMS as readonly string[]).includes(name)),
  );
  const { id: _unused, ...job } = await checkSchedule(jobParams, context);
  return { id, job, cron: timing.expression, timezone: timing.timezone, missed, overlap, origin };
}
