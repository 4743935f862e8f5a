/**
 * An in-memory JobService for the app's tests: the real one (SQLite store and process runner) is tested on its own.
 * It keeps the contract's rules (ids unique ignoring case, cancel by project, list oldest first) and nothing more;
 * tests move jobs along with start() and end().
 */
import {
  type CancelSignal,
  JobExistsError,
  type JobOutcome,
  type JobRecord,
  type JobService,
  type JobState,
  type NewJob,
} from "../../src/serve/types.ts";

export class FakeJobs implements JobService {
  readonly #jobs = new Map<string, JobRecord>();
  #clock = Date.UTC(2024, 0, 2, 3, 4, 5, 678);

  schedule(job: NewJob): JobRecord {
    const key = job.id.toLowerCase();
    if (this.#jobs.has(key)) throw new JobExistsError(`job ${job.id} exists`);
    const record: JobRecord = {
      ...job,
      state: "pending",
      outcome: null,
      createdAt: this.#clock++,
      startedAt: null,
      endedAt: null,
      pid: null,
      schedule: job.schedule ?? null,
    };
    this.#jobs.set(key, record);
    return record;
  }

  /** The signal each cancel of a running job asked for, in order. */
  readonly signals: CancelSignal[] = [];

  cancel(project: string, id: string, signal: CancelSignal = "INT"): JobState | undefined {
    const job = this.#jobs.get(id.toLowerCase());
    if (!job || job.project.toLowerCase() !== project.toLowerCase()) return undefined;
    const was = job.state;
    if (was === "pending") this.end(job.id, "cancelled");
    if (was === "running") this.signals.push(signal);
    // A running job would be stopped like Ctrl-C; here it stays running until a test ends it.
    return was;
  }

  get(id: string): JobRecord | undefined {
    return this.#jobs.get(id.toLowerCase());
  }

  list(project?: string): JobRecord[] {
    return [...this.#jobs.values()]
      .filter((job) => project === undefined || job.project.toLowerCase() === project.toLowerCase())
      .sort((a, b) => a.createdAt - b.createdAt);
  }

  /** Test control: the job starts running with this pid. */
  start(id: string, pid = 4242, at = this.#clock++): JobRecord {
    const job = this.#jobs.get(id.toLowerCase())!;
    Object.assign(job, { state: "running", startedAt: at, pid });
    return job;
  }

  /** Test control: the job ends with this outcome. */
  end(id: string, outcome: JobOutcome, at = this.#clock++): JobRecord {
    const job = this.#jobs.get(id.toLowerCase())!;
    Object.assign(job, { state: "finished", outcome, endedAt: at });
    return job;
  }

  /** Test control: a job record put in as it is (for names the app itself would never schedule). */
  insert(record: JobRecord): JobRecord {
    this.#jobs.set(record.id.toLowerCase(), record);
    return record;
  }
}
