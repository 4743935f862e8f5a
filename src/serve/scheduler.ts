/**
 * The timer of periodic schedules: every second (or when a test calls `tick`), each schedule whose due time has
 * come fires a job, is skipped because its last job is still running (overlap skip, the default), or, for a due time
 * that passed while the service was down, runs once or is skipped as its `missed` rule says (run, the default).
 * Several due times that passed together fire once. The clock is injected, so a test moves time by hand.
 */
import type { Logger } from "../spider/types.ts";
import { parseCron } from "./cron.ts";
import { JobExistsError } from "./types.ts";
import type { NewSchedule, ScheduleRecord, ScheduleStore } from "./schedule_store.ts";

/** How often the timer looks for due schedules. */
const TICK_MS = 1000;

export interface SchedulerOptions {
  store: ScheduleStore;
  /** Starts waiting jobs when there is room (the runner's), after a fire added one. */
  wake: () => void;
  log: Logger;
  /** Epoch milliseconds now (Date.now; a test's own clock). */
  now?: () => number;
  /** Leave the timer off: the caller calls tick() (tests). */
  manual?: boolean;
}

/** The job id a due time fires: the schedule's name and the due time in UTC, so it says where it came from. */
export function firedJobId(schedule: string, dueAt: number): string {
  return `${schedule}-${new Date(dueAt).toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z")}`;
}

export class Scheduler {
  readonly #store: ScheduleStore;
  readonly #wake: () => void;
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #manual: boolean;
  #startedAt = Number.NaN;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: SchedulerOptions) {
    this.#store = options.store;
    this.#wake = options.wake;
    this.#log = options.log;
    this.#now = options.now ?? Date.now;
    this.#manual = options.manual ?? false;
  }

  /** Starts the timer, and handles at once the due times missed while the service was down. */
  start(): void {
    this.#startedAt = this.#now();
    this.tick();
    if (!this.#manual) this.#timer = setInterval(() => this.tick(), TICK_MS);
  }

  /** Adds a schedule, due first at the next time its expression gives after now. */
  add(schedule: NewSchedule): ScheduleRecord {
    const timing = parseCron(schedule.cron, schedule.timezone);
    return this.#store.add(schedule, timing.nextAfter(this.#now()) ?? null, this.#now());
  }

  /** Pauses or resumes a schedule; a resumed one is next due after now. False when there is none. */
  setPaused(id: string, paused: boolean): boolean {
    const found = this.#store.get(id);
    if (!found) return false;
    const next = paused ? undefined : parseCron(found.cron, found.timezone).nextAfter(this.#now()) ?? null;
    return this.#store.setPaused(found.id, paused, next);
  }

  get(id: string): ScheduleRecord | undefined {
    return this.#store.get(id);
  }

  /** All schedules, or one project's, oldest first. */
  list(project?: string): ScheduleRecord[] {
    return this.#store.list(project);
  }

  /** Deletes a schedule (the jobs it fired stay). False when there is none. */
  remove(id: string): boolean {
    return this.#store.remove(id);
  }

  /** Fires or skips every schedule that is due now. */
  tick(): void {
    const now = this.#now();
    let fired = false;
    for (const schedule of this.#store.due(now)) {
      try {
        fired = this.#handle(schedule, now) || fired;
      } catch (error) {
        this.#log.error(`schedule ${schedule.id}: ${(error as Error).message}`);
      }
    }
    if (fired) this.#wake();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #handle(schedule: ScheduleRecord, now: number): boolean {
    const dueAt = schedule.nextAt!;
    const next = parseCron(schedule.cron, schedule.timezone).nextAfter(now) ?? null;
    const when = new Date(dueAt).toISOString();
    if (dueAt < this.#startedAt && schedule.missed === "skip") {
      return this.#skip(schedule, dueAt, next, `the run due at ${when} was missed while the service was down`);
    }
    const last = this.#store.lastJob(schedule.id);
    if (schedule.overlap === "skip" && last && (last.state === "pending" || last.state === "running")) {
      return this.#skip(
        schedule,
        dueAt,
        next,
        `the run due at ${when} was skipped: job ${last.id} is still ${last.state}`,
      );
    }
    const id = firedJobId(schedule.id, dueAt);
    try {
      if (!this.#store.fire(schedule.id, dueAt, next, { ...schedule.job, id, schedule: schedule.id }, now)) {
        return false;
      }
    } catch (error) {
      // A job scheduled by hand under this very id: the due time is skipped rather than tried every second.
      if (!(error instanceof JobExistsError)) throw error;
      return this.#skip(schedule, dueAt, next, `the run due at ${when} was skipped: a job ${id} already exists`);
    }
    const late = dueAt < this.#startedAt ? " (missed while the service was down)" : "";
    this.#log.info(`schedule ${schedule.id} fired job ${id}: ${schedule.job.project}/${schedule.job.spider}${late}`);
    return true;
  }

  #skip(schedule: ScheduleRecord, dueAt: number, next: number | null, note: string): boolean {
    if (this.#store.skip(schedule.id, dueAt, next, note)) this.#log.warning(`schedule ${schedule.id}: ${note}`);
    return false;
  }
}
