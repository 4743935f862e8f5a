/**
 * The contracts between the parts of `netweir serve`: the job service (store + runner), the project registry,
 * the paths under --dir, and the HTTP app. Each part is its own file; this one only says how they meet.
 */

/** Where a job is in its life. */
export type JobState = "pending" | "running" | "finished";

/**
 * How a finished job ended: exit 0; the crawl ran to its end but a monitor of its items failed (job_outcome.ts);
 * any other exit; cancelled by a user; or running when the service died.
 */
export type JobOutcome = "finished" | "monitor_failed" | "failed" | "cancelled" | "lost";

/** Every outcome, in the order pages and /metrics list them. */
export const JOB_OUTCOMES: readonly JobOutcome[] = ["finished", "monitor_failed", "failed", "cancelled", "lost"];

/** What schedule.json hands the job service, already checked. */
export interface NewJob {
  /** As given; job ids are compared without case (Job1 and job1 are one job). */
  id: string;
  project: string;
  spider: string;
  /** The spider file, absolute. */
  file: string;
  /** The project's directory: the job's working directory. */
  cwd: string;
  /** Higher runs first among waiting jobs. */
  priority: number;
  /** "KEY=VALUE" settings, as `-s` takes them (paths already made absolute inside the project's data dir). */
  settings: string[];
  /** "NAME=VALUE" spider arguments, as `-a` takes them. */
  args: string[];
  /** The periodic schedule that fired the job (null or absent for one scheduled by hand). */
  schedule?: string | null;
}

/** A job as the service keeps it. Times are epoch milliseconds. */
export interface JobRecord extends NewJob {
  state: JobState;
  /** Set once the job is finished. */
  outcome: JobOutcome | null;
  createdAt: number;
  startedAt: number | null;
  endedAt: number | null;
  /** The crawl process's id while it runs (and after, for the record). */
  pid: number | null;
  schedule: string | null;
}

/** Thrown by schedule when the id is taken (case-insensitively). */
export class JobExistsError extends Error {
  override name = "JobExistsError";
}

/**
 * How cancel.json stops a running job (its `signal` parameter, as scrapyd's): INT as Ctrl-C does (the default),
 * TERM as a service manager does, both killed with their children after the grace period; KILL kills the job and
 * every process it started at once.
 */
export type CancelSignal = "INT" | "TERM" | "KILL";

/** The job store and runner together, as the HTTP app sees them. */
export interface JobService {
  /** Adds a waiting job; it starts when there is room. Throws JobExistsError for a taken id. */
  schedule(job: NewJob): JobRecord;
  /**
   * Cancels a job of a project: a waiting one leaves the queue, a running one is sent `signal` (INT, like Ctrl-C,
   * by default) and killed with its children after the grace period, at once on a second cancel or with KILL.
   * Returns the state it was in, or undefined when there is no such job in that project.
   */
  cancel(project: string, id: string, signal?: CancelSignal): JobState | undefined;
  get(id: string): JobRecord | undefined;
  /** Jobs, all or one project's, oldest first. */
  list(project?: string): JobRecord[];
}

/** Where the service keeps things under --dir. */
export interface ServePaths {
  readonly dir: string;
  readonly jobsDb: string;
  logFile(job: Pick<JobRecord, "project" | "spider" | "id">): string;
  itemsFile(job: Pick<JobRecord, "project" | "spider" | "id">): string;
  statsFile(job: Pick<JobRecord, "project" | "spider" | "id">): string;
  /**
   * Where a job's command line waits for its process (settings and arguments included), readable by the service's
   * user alone and deleted by the process once read: not on the command line, which every local user can read.
   */
  jobSpecFile(job: Pick<JobRecord, "id">): string;
  /** DIR/data/PROJECT: the only place a job's checkpoint, cache, deltafetch, warc and har may be. */
  dataDir(project: string): string;
}

/** One served project. */
export interface Project {
  name: string;
  /** A spider file or a directory of them, absolute. */
  path: string;
  /** The directory jobs run in: the path itself, or the file's directory. */
  dir: string;
}

/** A spider found in a project, with what is needed to check settings for it without running it. */
export interface ProjectSpider {
  name: string;
  /** Absolute path of its file. */
  file: string;
  settings: Record<string, unknown>;
  profiles: Record<string, Record<string, unknown>>;
}

export interface ProjectRegistry {
  names(): string[];
  /** The project, looked up ignoring case. */
  get(name: string): Project | undefined;
  /**
   * The project's spiders: what its files declared, files changed since they were last read read again in a child
   * process (an edited file is seen at once). Files that fail to load are reported by name in `errors`.
   */
  spiders(name: string): Promise<{ spiders: ProjectSpider[]; errors: { file: string; error: string }[] }>;
}
