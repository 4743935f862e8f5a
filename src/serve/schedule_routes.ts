/**
 * The periodic schedules' endpoints, in scrapyd's style (node_name and status on every answer, parameters in the
 * query or a form body): addschedule.json, listschedules.json, delschedule.json, pauseschedule.json and
 * resumeschedule.json.
 */
import { maskArgument, maskedPairs, maskSetting } from "./secrets.ts";
import { optionalName, requiredName, ScheduleError } from "./schedule.ts";
import { checkAddSchedule } from "./schedule_params.ts";
import type { ScheduleContext } from "./schedule.ts";
import { ScheduleExistsError, type ScheduleRecord } from "./schedule_store.ts";
import type { Scheduler } from "./scheduler.ts";
import type { Project } from "./types.ts";

type Answer = Record<string, unknown>;
/** app.ts's way of adding a scrapyd-style endpoint. */
export type AddEndpoint = (
  name: string,
  method: "GET" | "POST",
  handler: (params: URLSearchParams) => Answer | Promise<Answer>,
) => void;

const iso = (at: number | null) => at === null ? null : new Date(at).toISOString();

/** One schedule as listschedules.json lists it: settings and arguments masked as listjobs.json masks them. */
export function listedSchedule(schedule: ScheduleRecord): Answer {
  return {
    id: schedule.id,
    project: schedule.job.project,
    spider: schedule.job.spider,
    cron: schedule.cron,
    timezone: schedule.timezone,
    missed: schedule.missed,
    overlap: schedule.overlap,
    priority: schedule.job.priority,
    settings: maskedPairs(schedule.job.settings, maskSetting),
    args: maskedPairs(schedule.job.args, maskArgument),
    paused: schedule.paused,
    origin: schedule.origin,
    next_run: schedule.paused ? null : iso(schedule.nextAt),
    last_run: iso(schedule.lastDueAt),
    last_job: schedule.lastJob,
    last_note: schedule.lastNote,
  };
}

export function addScheduleEndpoints(
  endpoint: AddEndpoint,
  scheduler: Scheduler,
  context: ScheduleContext,
  projectNamed: (name: string) => Project,
): void {
  /** The schedule `schedule` names, in `project`, or the refusal. */
  const scheduleOf = (params: URLSearchParams): ScheduleRecord => {
    const project = projectNamed(requiredName(params, "project"));
    const id = requiredName(params, "schedule");
    const found = scheduler.get(id);
    if (!found || found.job.project !== project.name) {
      throw new ScheduleError(`schedule '${id}' not found in project '${project.name}'`);
    }
    return found;
  };

  endpoint("addschedule.json", "POST", async (params) => {
    const schedule = await checkAddSchedule(params, context);
    try {
      const added = scheduler.add(schedule);
      return { schedule: added.id, next_run: iso(added.nextAt) };
    } catch (error) {
      if (error instanceof ScheduleExistsError) throw new ScheduleError(`${error.message} (names ignore case)`);
      throw error;
    }
  });

  endpoint("listschedules.json", "GET", (params) => {
    const given = optionalName(params, "project");
    return {
      schedules: scheduler.list(given === undefined ? undefined : projectNamed(given).name).map(listedSchedule),
    };
  });

  endpoint("delschedule.json", "POST", (params) => {
    const found = scheduleOf(params);
    scheduler.remove(found.id);
    return { schedule: found.id };
  });

  for (const [name, paused] of [["pauseschedule.json", true], ["resumeschedule.json", false]] as const) {
    endpoint(name, "POST", (params) => {
      const found = scheduleOf(params);
      scheduler.setPaused(found.id, paused);
      const now = scheduler.get(found.id)!;
      return { schedule: found.id, paused: now.paused, next_run: now.paused ? null : iso(now.nextAt) };
    });
  }
}
