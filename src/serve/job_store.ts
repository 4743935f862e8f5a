/**
 * The job table of `netweir serve`: DIR/jobs.db, one SQLite table (node:sqlite, built into Deno 2 and Node 22, so
 * nothing native is downloaded). Every method is one statement or one transaction and is on disk when it returns
 * (WAL with synchronous=FULL), so a service killed at any point restarts with the table as it last said it was.
 */
import { DatabaseSync, type SQLOutputValue } from "node:sqlite";
import { inTransaction } from "../sqlite.ts";
import { AlertOutbox } from "./alert_outbox.ts";
import { keepPrivate, keepPrivateIfThere } from "./private_files.ts";
import { JobExistsError, type JobOutcome, type JobRecord, type JobState, type NewJob } from "./types.ts";

/** How many jobs are in each state. */
export interface JobCounts {
  pending: number;
  running: number;
  finished: number;
}

// `seq` orders jobs created in the same millisecond and is never reused; `id` keeps the spelling it was given
// (clients look their job up by it) and is compared without case, so Job1 and job1 are one job.
const JOBS_TABLE = (name: string) => `
  CREATE TABLE IF NOT EXISTS ${name} (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE COLLATE NOCASE,
    project TEXT NOT NULL,
    spider TEXT NOT NULL,
    file TEXT NOT NULL,
    cwd TEXT NOT NULL,
    priority INTEGER NOT NULL,
    settings TEXT NOT NULL,
    args TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'running', 'finished')),
    outcome TEXT CHECK (outcome IN ('finished', 'monitor_failed', 'failed', 'cancelled', 'lost')),
    created_at INTEGER NOT NULL,
    started_at INTEGER,
    ended_at INTEGER,
    pid INTEGER,
    schedule TEXT
  );`;
const INDEXES = `
  CREATE INDEX IF NOT EXISTS jobs_waiting ON jobs (state, priority DESC, created_at, seq);
  CREATE INDEX IF NOT EXISTS jobs_by_project ON jobs (project COLLATE NOCASE, created_at, seq);
  CREATE INDEX IF NOT EXISTS jobs_by_end ON jobs (state, ended_at DESC, seq DESC);
`;

/** A jobs.db made before schedules gains the column naming the schedule a job was fired by. */
const ADD_SCHEDULE_COLUMN = "ALTER TABLE jobs ADD COLUMN schedule TEXT";
const SCHEDULE_INDEX = "CREATE INDEX IF NOT EXISTS jobs_by_schedule ON jobs (schedule, seq)";

/**
 * A jobs.db made before the monitor_failed outcome has a CHECK that refuses it, and SQLite cannot change a CHECK in
 * place: the table is copied into one with the new CHECK, in one transaction, rows and seq kept as they were.
 */
function allowMonitorFailed(db: DatabaseSync): void {
  const row = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'jobs'").get();
  if (String(row?.sql ?? "").includes("monitor_failed")) return;
  inTransaction(db, () => {
    db.exec(JOBS_TABLE("jobs_new"));
    db.exec(`INSERT INTO jobs_new (seq, ${COLUMNS}) SELECT seq, ${COLUMNS} FROM jobs`);
    db.exec("DROP TABLE jobs");
    db.exec("ALTER TABLE jobs_new RENAME TO jobs");
  });
}

const COLUMNS = "id, project, spider, file, cwd, priority, settings, args, state, outcome, created_at, started_at, " +
  "ended_at, pid, schedule";

type Row = Record<string, SQLOutputValue>;

function numberOrNull(value: SQLOutputValue): number | null {
  return value === null ? null : Number(value);
}

function toRecord(row: Row): JobRecord {
  return {
    id: String(row.id),
    project: String(row.project),
    spider: String(row.spider),
    file: String(row.file),
    cwd: String(row.cwd),
    priority: Number(row.priority),
    settings: JSON.parse(String(row.settings)),
    args: JSON.parse(String(row.args)),
    state: String(row.state) as JobState,
    outcome: row.outcome === null ? null : String(row.outcome) as JobOutcome,
    createdAt: Number(row.created_at),
    startedAt: numberOrNull(row.started_at),
    endedAt: numberOrNull(row.ended_at),
    pid: numberOrNull(row.pid),
    schedule: row.schedule === null || row.schedule === undefined ? null : String(row.schedule),
  };
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Error && /UNIQUE constraint failed/i.test(error.message);
}

/**
 * Adds a waiting job through `db`: JobStore's connection, or the schedule store's, which adds a fired job in the
 * same transaction that moves its schedule on. Throws JobExistsError when the id is taken, whatever its case.
 */
export function insertJob(db: DatabaseSync, job: NewJob, at: number): void {
  try {
    db.prepare(
      "INSERT INTO jobs (id, project, spider, file, cwd, priority, settings, args, state, created_at, schedule) " +
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)",
    ).run(
      job.id,
      job.project,
      job.spider,
      job.file,
      job.cwd,
      job.priority,
      JSON.stringify(job.settings),
      JSON.stringify(job.args),
      at,
      job.schedule ?? null,
    );
  } catch (error) {
    if (isUniqueViolation(error)) throw new JobExistsError(`job ${job.id} already exists`);
    throw error;
  }
}

/** The jobs of one service, in DIR/jobs.db. Open it only while holding the dir's lock (dir_lock.ts). */
export class JobStore {
  readonly #db: DatabaseSync;

  /** Opens (creating when missing) the job table in the SQLite file `path`. */
  constructor(path: string) {
    // It holds every job's settings and arguments in clear: 0600, and so its -wal and -shm, which SQLite makes with
    // the database's mode (those left by a killed service are made 0600 too).
    keepPrivate(path);
    keepPrivateIfThere([`${path}-wal`, `${path}-shm`]);
    this.#db = new DatabaseSync(path);
    try {
      // WAL: readers (listjobs) never wait for a writer. synchronous=FULL: in WAL mode NORMAL may lose the last
      // commits on power loss; FULL makes each change durable before the call returns.
      this.#db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;");
      this.#db.exec(JOBS_TABLE("jobs"));
      const columns = this.#db.prepare("PRAGMA table_info(jobs)").all().map((row) => String(row.name));
      if (!columns.includes("schedule")) this.#db.exec(ADD_SCHEDULE_COLUMN);
      allowMonitorFailed(this.#db);
      this.#db.exec(INDEXES);
      this.#db.exec(SCHEDULE_INDEX);
    } catch (error) {
      this.#db.close();
      throw error;
    }
  }

  /** Adds a waiting job. Throws JobExistsError when the id is taken, whatever its case. */
  add(job: NewJob, at: number = Date.now()): JobRecord {
    insertJob(this.#db, job, at);
    return this.get(job.id)!;
  }

  /** The job with this id (any case), or undefined. */
  get(id: string): JobRecord | undefined {
    const row = this.#db.prepare(`SELECT ${COLUMNS} FROM jobs WHERE id = ?`).get(id);
    return row ? toRecord(row) : undefined;
  }

  /** All jobs, or one project's (its name in any case), oldest first. */
  list(project?: string): JobRecord[] {
    const rows = project === undefined
      ? this.#db.prepare(`SELECT ${COLUMNS} FROM jobs ORDER BY created_at, seq`).all()
      : this.#db.prepare(`SELECT ${COLUMNS} FROM jobs WHERE project = ? COLLATE NOCASE ORDER BY created_at, seq`)
        .all(project);
    return rows.map(toRecord);
  }

  /** The waiting job to start next: the highest priority, then the oldest. */
  nextPending(): JobRecord | undefined {
    const row = this.#db.prepare(
      `SELECT ${COLUMNS} FROM jobs WHERE state = 'pending' ORDER BY priority DESC, created_at, seq LIMIT 1`,
    ).get();
    return row ? toRecord(row) : undefined;
  }

  /** Records that a waiting job started (pid null when its process could not be started). False if it was not waiting. */
  markRunning(id: string, pid: number | null, at: number = Date.now()): boolean {
    const result = this.#db.prepare(
      "UPDATE jobs SET state = 'running', pid = ?, started_at = ? WHERE id = ? AND state = 'pending'",
    ).run(pid, at, id);
    return Number(result.changes) === 1;
  }

  /** Records how a waiting or running job ended. False if there is no such job or it had already finished. */
  markFinished(id: string, outcome: JobOutcome, at: number = Date.now()): boolean {
    const result = this.#db.prepare(
      "UPDATE jobs SET state = 'finished', outcome = ?, ended_at = ? WHERE id = ? AND state != 'finished'",
    ).run(outcome, at, id);
    return Number(result.changes) === 1;
  }

  /** Deletes a waiting job (scrapyd's way of cancelling one). False if it was not waiting. */
  removePending(id: string): boolean {
    const result = this.#db.prepare("DELETE FROM jobs WHERE id = ? AND state = 'pending'").run(id);
    return Number(result.changes) === 1;
  }

  /**
   * At start-up: the jobs still marked running belong to a service that died without seeing them end. They become
   * finished with outcome lost, and are returned; `also` is given them inside the same transaction.
   */
  markRunningAsLost(at: number = Date.now(), also?: (lost: JobRecord[]) => void): JobRecord[] {
    return this.#transaction(() => {
      const rows = this.#db.prepare(`SELECT ${COLUMNS} FROM jobs WHERE state = 'running' ORDER BY created_at, seq`)
        .all();
      this.#db.prepare("UPDATE jobs SET state = 'finished', outcome = 'lost', ended_at = ? WHERE state = 'running'")
        .run(at);
      const lost = rows.map((row) => ({
        ...toRecord(row),
        state: "finished" as const,
        outcome: "lost" as const,
        endedAt: at,
      }));
      // In the same transaction: their alerts (through alertOutbox()) are on disk with them or not at all.
      also?.(lost);
      return lost;
    });
  }

  /**
   * Forgets the finished jobs beyond the `keep` that ended last, and returns them so their log, items and stats
   * files can be deleted. Jobs cancelled before they started are counted apart, with an allowance of `keep` of their
   * own: scrapyd forgets such a job at once, so they must not push jobs that ran (and their logs) out of --keep.
   */
  prune(keep: number): JobRecord[] {
    if (!Number.isInteger(keep) || keep < 0) throw new RangeError(`keep must be a whole number >= 0, not ${keep}`);
    return this.#transaction(() => {
      const beyond = (started: string) =>
        this.#db.prepare(
          `SELECT seq, ${COLUMNS} FROM jobs WHERE state = 'finished' AND started_at IS ${started} ` +
            "ORDER BY ended_at DESC, seq DESC LIMIT -1 OFFSET ?",
        ).all(keep);
      const rows = [...beyond("NOT NULL"), ...beyond("NULL")];
      const remove = this.#db.prepare("DELETE FROM jobs WHERE seq = ?");
      for (const row of rows) remove.run(row.seq);
      return rows.map(toRecord);
    });
  }

  /** How many jobs are waiting, running and finished. */
  counts(): JobCounts {
    const counts: JobCounts = { pending: 0, running: 0, finished: 0 };
    for (const row of this.#db.prepare("SELECT state, COUNT(*) AS n FROM jobs GROUP BY state").all()) {
      counts[String(row.state) as JobState] = Number(row.n);
    }
    return counts;
  }

  /**
   * Runs `body` in one transaction of this store's connection, together with whatever it writes through
   * {@link alertOutbox}: a job's end and its alert are on disk together or not at all. `body` must not start a
   * transaction of its own (markRunningAsLost and prune do).
   */
  together<T>(body: () => T): T {
    return this.#transaction(body);
  }

  /** The alert outbox on this store's connection, so that {@link together} covers its writes too. */
  alertOutbox(): AlertOutbox {
    return new AlertOutbox(this.#db);
  }

  /** Closes the database file. */
  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }

  #transaction<T>(body: () => T): T {
    return inTransaction(this.#db, body);
  }
}
