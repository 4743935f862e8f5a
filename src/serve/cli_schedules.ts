/**
 * `netweir serve --schedule 'PROJECT/SPIDER@CRON'`: schedules named on the command line, checked as addschedule.json
 * checks them (a bad one stops the service from starting, exit 2). Each gets a name made from its own text, so
 * the same option at the next start finds its schedule, with its next due time, in jobs.db; one no longer given is
 * removed. Those added over HTTP are not touched.
 */
import { UsageError } from "../errors.ts";
import { isServeName, NAME_RULE } from "./names.ts";
import { isRefusal, type ScheduleContext } from "./schedule.ts";
import { checkAddSchedule } from "./schedule_params.ts";
import type { NewSchedule } from "./schedule_store.ts";
import type { Scheduler } from "./scheduler.ts";

const SPEC = /^([^/@\s]+)\/([^/@\s]+)@(.+)$/;

/** A --schedule's parts; throws UsageError (exit 2) naming what is wrong. Called as the options are checked. */
export function parseScheduleSpec(spec: string): { project: string; spider: string; cron: string } {
  const match = SPEC.exec(spec.trim());
  if (!match) {
    throw new UsageError(
      `--schedule ${JSON.stringify(spec)} is invalid: write PROJECT/SPIDER@CRON, such as 'shop/books@0 3 * * *'`,
    );
  }
  const [, project, spider, cron] = match;
  for (const [what, name] of [["project", project], ["spider", spider]]) {
    if (!isServeName(name)) {
      throw new UsageError(`--schedule ${JSON.stringify(spec)}: the ${what} name must be ${NAME_RULE}`);
    }
  }
  return { project, spider, cron };
}

/** The text of a --schedule as addschedule.json's parameters, with the name it always gets. */
export async function scheduleSpecParams(spec: string): Promise<URLSearchParams> {
  const { project, spider, cron } = parseScheduleSpec(spec);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(spec.trim())));
  const hash = [...digest.slice(0, 4)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  const name = `${project}-${spider}`.slice(0, 80);
  return new URLSearchParams({ project, spider, cron, schedule: `${name}-${hash}` });
}

/** Checks every --schedule, then adds the new ones and removes the command-line schedules no longer given. */
export async function applyCliSchedules(
  specs: readonly string[],
  scheduler: Scheduler,
  context: ScheduleContext,
): Promise<void> {
  const checked: NewSchedule[] = [];
  for (const spec of specs) {
    try {
      checked.push(await checkAddSchedule(await scheduleSpecParams(spec), context, "cli"));
    } catch (error) {
      if (isRefusal(error)) throw new UsageError(`--schedule ${JSON.stringify(spec)}: ${error.message}`);
      throw error;
    }
  }
  const wanted = new Set(checked.map((schedule) => schedule.id.toLowerCase()));
  for (const old of scheduler.list()) {
    if (old.origin === "cli" && !wanted.has(old.id.toLowerCase())) scheduler.remove(old.id);
  }
  for (const schedule of checked) {
    if (!scheduler.get(schedule.id)) scheduler.add(schedule);
  }
}
