/**
 * The periodic schedules of `netweir serve`, in DIR/jobs.db beside the jobs, on a connection of their own. A due time
 * is fired in one transaction that adds the job and moves the schedule to its next due time, and only while the
 * schedule still says that due time: a service killed at any moment restarts with either both or neither, so a due
 * time is fired exactly once (docs/design/serve.md).
 */
import type { DatabaseSync, SQLOutputValue } from "node:sqlite";
import { inTransaction } from "../sqlite.ts";
import { openServeDb } from "./serve_db.ts";
import { insertJob } from "./job_store.ts";
import type { JobState, NewJob } from "./types.ts";

/** What a schedule does with a due time that passed while the service was down: run it once at start, or skip it. */
export type MissedRule = "run" | "skip";
/** What a schedule does when it is due and its last job is still waiting or running: skip this time, or queue. */
export type OverlapRule = "skip" | "queue";

/** A schedule as addschedule.json (or --schedule) gives it, checked: the job it fires, and when. */
export interface NewSchedule {
  /** Its name; compared without case, as job ids are. */
  id: string;
  /** The job each due time fires, but for its id (made from the schedule's name and the due time). */
  job: Omit<NewJob, "id" | "schedule">;
  cron: string;
  timezone: string;
  missed: MissedRule;
  overlap: OverlapRule;
  /** Added over HTTP, or from --schedule (those not given at the next start are removed). */
  origin: "http" | "cli";
}

/** A schedule as the service keeps it. Times are epoch milliseconds. */
export interface ScheduleRecord extends NewSchedule {
  paused: boolean;
  /** The next due time; null when the expression never comes round again. */
  nextAt: number | null;
  createdAt: number;
  /** The last due time fired or skipped, the job it fired, and why it was skipped (null when it fired). */
  lastDueAt: number | null;
  lastJob: string | null;
  lastNote: string | null;
}

/** Thrown when a schedule's name is taken (whatever its case). */
export class ScheduleExistsError extends Error {
  override name = "ScheduleExistsError";
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS schedules (
    id TEXT PRIMARY KEY COLLATE NOCASE,
    job TEXT NOT NULL,
    cron TEXT NOT NULL,
    timezone TEXT NOT NULL,
    missed TEXT NOT NULL CHECK (missed IN ('run', 'skip')),
    overlap TEXT NOT NULL CHECK (overlap IN ('skip', 'queue')),
    origin TEXT NOT NULL CHECK (origin IN ('http', 'cli')),
    paused INTEGER NOT NULL DEFAULT 0,
    next_at INTEGER,
    created_at INTEGER NOT NULL,
    last_due_at INTEGER,
    last_job TEXT,
    last_note TEXT
  );
`;

type Row = Record<string, SQLOutputValue>;

function toRecord(row: Row): ScheduleRecord {
  const numberOrNull = (value: SQLOutputValue) => value === null ? null : Number(value);
  return {
    id: String(row.id),
    job: JSON.parse(String(row.job)),
    cron: String(row.cron),
    timezone: String(row.timezone),
    missed: String(row.missed) as MissedRule,
    overlap: String(row.overlap) as OverlapRule,
    origin: String(row.origin) as "http" | "cli",
    paused: Number(row.paused) === 1,
    nextAt: numberOrNull(row.next_at),
    createdAt: Number(row.created_at),
    lastDueAt: numberOrNull(row.last_due_at),
    lastJob: row.last_job === null ? null : String(row.last_job),
    lastNote: row.last_note === null ? null : String(row.last_note),
  };
}

/** The schedules of one service. Open it after the JobStore (which makes the jobs table), under the dir's lock. */
export class ScheduleStore {
  readonly #db: DatabaseSync;

  constructor(path: string) {
    this.#db = openServeDb(path, SCHEMA);
  }

  /** Adds a schedule due next at `nextAt`. Throws ScheduleExistsError when its name is taken. */
  add(schedule: NewSchedule, nextAt: number | null, at: number): ScheduleRecord {
    try {
      this.#db.prepare(
        "INSERT INTO schedules (id, job, cron, timezone, missed, overlap, origin, next_at, created_at) " +
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      ).run(
        schedule.id,
        JSON.stringify(schedule.job),
        schedule.cron,
        schedule.timezone,
        schedule.missed,
        schedule.overlap,
        schedule.origin,
        nextAt,
        at,
      );
    } catch (error) {
      if (error instanceof Error && /UNIQUE constraint failed/i.test(error.message)) {
        throw new ScheduleExistsError(`schedule '${this.get(schedule.id)?.id ?? schedule.id}' already exists`);
      }
      throw error;
    }
    return this.get(schedule.id)!;
  }

  get(id: string): ScheduleRecord | undefined {
    const row = this.#db.prepare("SELECT * FROM schedules WHERE id = ?").get(id);
    return row ? toRecord(row) : undefined;
  }

  /** All schedules, oldest first; one project's (any case) when named. */
  list(project?: string): ScheduleRecord[] {
    const all = this.#db.prepare("SELECT * FROM schedules ORDER BY created_at, rowid").all().map(toRecord);
    return project === undefined ? all : all.filter((s) => s.job.project.toLowerCase() === project.toLowerCase());
  }

  /** Deletes a schedule; its jobs stay. False when there is none. */
  remove(id: string): boolean {
    return Number(this.#db.prepare("DELETE FROM schedules WHERE id = ?").run(id).changes) === 1;
  }

  /** Pauses a schedule, or resumes it due next at `nextAt` (due times that passed while paused are not run). */
  setPaused(id: string, paused: boolean, nextAt?: number | null): boolean {
    const result = paused
      ? this.#db.prepare("UPDATE schedules SET paused = 1 WHERE id = ?").run(id)
      : this.#db.prepare("UPDATE schedules SET paused = 0, next_at = ? WHERE id = ?").run(nextAt ?? null, id);
    return Number(result.changes) === 1;
  }

  /** The schedules not paused whose next due time is at or before `now`. */
  due(now: number): ScheduleRecord[] {
    return this.#db.prepare(
      "SELECT * FROM schedules WHERE paused = 0 AND next_at IS NOT NULL AND next_at <= ? ORDER BY next_at, rowid",
    ).all(now).map(toRecord);
  }

  /** The state of the last job the schedule fired, with its id; undefined when it has none (or it was forgotten). */
  lastJob(id: string): { id: string; state: JobState } | undefined {
    const row = this.#db.prepare(
      "SELECT id, state FROM jobs WHERE schedule = ? COLLATE NOCASE ORDER BY seq DESC LIMIT 1",
    )
      .get(id);
    return row ? { id: String(row.id), state: String(row.state) as JobState } : undefined;
  }

  /**
   * Fires due time `dueAt` of a schedule: adds `job` and moves the schedule on to `nextAt`, in one transaction, and
   * only if the schedule is still due at `dueAt` and not paused. False when it was not (fired already, paused,
   * deleted): then nothing is added.
   */
  fire(id: string, dueAt: number, nextAt: number | null, job: NewJob, at: number): boolean {
    return inTransaction(this.#db, () => {
      if (!this.#moveOn(id, dueAt, nextAt, job.id, null)) return false;
      insertJob(this.#db, job, at);
      return true;
    });
  }

  /** Skips due time `dueAt` for the reason `note`, moving the schedule on to `nextAt`, under fire's conditions. */
  skip(id: string, dueAt: number, nextAt: number | null, note: string): boolean {
    return inTransaction(this.#db, () => this.#moveOn(id, dueAt, nextAt, null, note));
  }

  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }

  #moveOn(id: string, dueAt: number, nextAt: number | null, job: string | null, note: string | null): boolean {
    const result = this.#db.prepare(
      "UPDATE schedules SET next_at = ?, last_due_at = ?, last_job = coalesce(?, last_job), last_note = ? " +
        "WHERE id = ? AND next_at = ? AND paused = 0",
    ).run(nextAt, dueAt, job, note, id, dueAt);
    return Number(result.changes) === 1;
  }
}
