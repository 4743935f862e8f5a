/**
 * Runs the jobs of `netweir serve`: at most maxJobs `netweir crawl` processes at once, the waiting job with the
 * highest priority (then the oldest) first, each in a process group of its own. Cancelling stops a crawl the way
 * Ctrl-C does and kills it with its children if it has not stopped after the grace period (at once on a second
 * cancel). The store says what is waiting; this class only remembers the processes it started.
 */
import { rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { dirname } from "node:path";
import { formatLogLine, maskSecrets } from "../log.ts";
import type { Logger } from "../spider/types.ts";
import { jobLimitProblem } from "./job_limits.ts";
import type { JobCounts, JobStore } from "./job_store.ts";
import type { JobEvents } from "./alerts.ts";
import { jobOutcome } from "./job_outcome.ts";
import { jobLogFormat, startLine, writeJobSpec } from "./job_spec.ts";
import { appendPrivate, makePrivateDir } from "./private_files.ts";
import { type GroupProcess, type ProcessExit, startProcessGroup } from "./process_group.ts";
import { readJobStats, readJobStatsSync } from "./stats.ts";
import type { CancelSignal, JobRecord, JobService, JobState, NewJob, ServePaths } from "./types.ts";

/** How the runner starts `netweir`: an executable and its leading arguments (runtime.selfCommand(cli.ts)). */
export interface CliCommand {
  command: string;
  args: string[];
}

export interface JobRunnerOptions {
  store: JobStore;
  paths: ServePaths;
  /** How many jobs run at once (--max-jobs). */
  maxJobs: number;
  /** How many finished jobs are remembered (--keep, default 100); older ones are forgotten and their files deleted. */
  keep?: number;
  /** How long a cancelled crawl has to stop after SIGINT before it is killed (default 30 000 ms). */
  graceMs?: number;
  cliCommand: CliCommand;
  log: Logger;
  /** Told when a job starts and ends (alerts.ts); it must not block, and what it throws is logged. */
  events?: JobEvents;
}

/** A job whose process this runner started and has not yet seen end. */
interface RunningJob {
  record: JobRecord;
  crawl: GroupProcess;
  cancelled: boolean;
  graceTimer?: ReturnType<typeof setTimeout>;
  /** Resolves once the job is marked finished and pruning after it is done. */
  done: Promise<void>;
}

const DEFAULT_KEEP = 100;
const DEFAULT_GRACE_MS = 30_000;

/** The job store and the crawl processes together: what the HTTP app calls. */
export class JobRunner implements JobService {
  readonly #store: JobStore;
  readonly #paths: ServePaths;
  readonly #maxJobs: number;
  readonly #keep: number;
  readonly #graceMs: number;
  readonly #cli: CliCommand;
  readonly #log: Logger;
  readonly #events: JobEvents | undefined;
  readonly #running = new Map<string, RunningJob>();
  /** Deleting pruned jobs' files, so shutdown can wait for it. */
  readonly #chores = new Set<Promise<void>>();
  readonly #waiters = new Map<string, Array<(job: JobRecord | undefined) => void>>();
  #started = false;
  #stopping = false;

  constructor(options: JobRunnerOptions) {
    if (!Number.isInteger(options.maxJobs) || options.maxJobs < 1) {
      throw new RangeError(`maxJobs must be a whole number >= 1, not ${options.maxJobs}`);
    }
    const keep = options.keep ?? DEFAULT_KEEP;
    if (!Number.isInteger(keep) || keep < 0) throw new RangeError(`keep must be a whole number >= 0, not ${keep}`);
    const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
    if (!(graceMs >= 0)) throw new RangeError(`graceMs must be >= 0, not ${graceMs}`);
    this.#store = options.store;
    this.#paths = options.paths;
    this.#maxJobs = options.maxJobs;
    this.#keep = keep;
    this.#graceMs = graceMs;
    this.#cli = options.cliCommand;
    this.#log = options.log;
    this.#events = options.events;
  }

  /**
   * Start-up: marks the jobs a dead service left running as lost (returned), forgets finished jobs beyond keep,
   * then starts waiting jobs while there is room. Call once, before anything else.
   */
  start(): JobRecord[] {
    if (this.#started) throw new Error("the job runner has already started");
    this.#started = true;
    const lost = this.#store.markRunningAsLost(Date.now(), (lost) => {
      // Their alerts in the same transaction; stats read now, since pruning below may forget a job and its files.
      for (const job of lost) this.#tell("ended", job, readJobStatsSync(this.#paths.statsFile(job)));
    });
    for (const job of lost) {
      this.#log.warning(`job ${job.id} (${job.project}/${job.spider}) was running when the service stopped: lost`);
    }
    this.#prune();
    this.#startWaiting();
    return lost;
  }

  schedule(job: NewJob): JobRecord {
    if (this.#stopping) throw new Error("the service is stopping");
    const record = this.#store.add(job);
    this.#log.info(`job ${record.id} scheduled: ${record.project}/${record.spider}`);
    this.#startWaiting();
    return this.#store.get(record.id) ?? record;
  }

  /** Starts waiting jobs while there is room: after a schedule added one to jobs.db itself. */
  wake(): void {
    if (this.#started && !this.#stopping) this.#startWaiting();
  }

  cancel(project: string, id: string, signal: CancelSignal = "INT"): JobState | undefined {
    const job = this.#store.get(id);
    if (!job || job.project.toLowerCase() !== project.toLowerCase()) return undefined;
    if (job.state === "pending") {
      // Kept, as finished/cancelled, rather than deleted as scrapyd does: it stays in listjobs with its outcome.
      this.#store.together(() => {
        this.#store.markFinished(job.id, "cancelled");
        // Alerted like every other end: a night's scheduled run that never ran is news to whoever reads the alerts.
        this.#tell("ended", this.#store.get(job.id) ?? job, null);
      });
      this.#log.info(`job ${job.id} cancelled before it started`);
      this.#notify(job.id);
      this.#prune();
    } else if (job.state === "running") {
      const running = this.#running.get(job.id);
      if (running) this.#stop(running, signal);
    }
    return job.state;
  }

  get(id: string): JobRecord | undefined {
    return this.#store.get(id);
  }

  list(project?: string): JobRecord[] {
    return this.#store.list(project);
  }

  /** How many jobs wait, run and have finished (daemonstatus.json). */
  counts(): JobCounts {
    return this.#store.counts();
  }

  /**
   * Resolves with the job once it is finished (at once if it is), after the files of jobs pruned then are deleted;
   * with undefined if there is no such job, or it was forgotten before it was seen finished. A job still waiting
   * when the runner shuts down resolves as it is, pending.
   */
  whenFinished(id: string): Promise<JobRecord | undefined> {
    const job = this.#store.get(id);
    if (!job || job.state === "finished") return Promise.resolve(job);
    return new Promise((resolve) => {
      const waiters = this.#waiters.get(job.id) ?? [];
      waiters.push(resolve);
      this.#waiters.set(job.id, waiters);
    });
  }

  /**
   * Stops the service's side of jobs: no job starts any more, running ones are cancelled as cancel() does, and
   * this resolves when they have ended and their files are settled. Waiting jobs stay waiting in the store, for
   * the next start. Called again, it kills the running jobs at once, like a second cancel.
   */
  async shutdown(): Promise<void> {
    this.#stopping = true;
    for (const running of this.#running.values()) this.#stop(running);
    await Promise.all([...this.#running.values()].map((running) => running.done));
    while (this.#chores.size > 0) await Promise.allSettled(this.#chores);
    for (const [id, waiters] of this.#waiters) {
      // Jobs still waiting: they will not finish under this runner.
      this.#waiters.delete(id);
      for (const wake of waiters) wake(this.#store.get(id));
    }
  }

  /**
   * First call: SIGINT (or SIGTERM), and SIGKILL to the job's processes after the grace period. KILL, or any later
   * call: SIGKILL now.
   */
  #stop(running: RunningJob, signal: CancelSignal = "INT"): void {
    const { record, crawl } = running;
    if (running.cancelled || signal === "KILL") {
      clearTimeout(running.graceTimer);
      const why = running.cancelled ? "cancelled again" : "cancelled with signal KILL";
      running.cancelled = true;
      this.#note(record, "WARNING", `${why}: killing the crawl and every process it started`);
      crawl.kill();
      return;
    }
    running.cancelled = true;
    const name = signal === "TERM" ? "SIGTERM" : "SIGINT";
    this.#note(record, "INFO", `cancelled: stopping the crawl (${name})`);
    crawl.interrupt(name);
    running.graceTimer = setTimeout(() => {
      this.#note(
        record,
        "WARNING",
        `still running ${this.#graceMs / 1000} s after ${name}: killing the crawl and every process it started`,
      );
      crawl.kill();
    }, this.#graceMs);
  }

  /** Starts waiting jobs, best first, while fewer than maxJobs run. */
  #startWaiting(): void {
    if (!this.#started || this.#stopping) return;
    while (this.#running.size < this.#maxJobs) {
      const job = this.#store.nextPending();
      if (!job) return;
      this.#launch(job);
    }
  }

  #launch(job: JobRecord): void {
    let crawl: GroupProcess;
    try {
      // The log's folder first: whatever stops the job from starting is said there.
      makePrivateDir(dirname(this.#paths.logFile(job)));
      // schedule.json refuses such a job; one stored before the limits existed fails here rather than start.
      const tooMuch = jobLimitProblem(job);
      if (tooMuch) throw new Error(tooMuch);
      // The crawl writes its items and stats there, which it does not make itself. The folders of its warc, har and
      // the like in the data directory (`warc=runs/books.warc`) are made by the job's process, after it has checked
      // them again (confine.ts's reconfine).
      for (const file of [this.#paths.itemsFile(job), this.#paths.statsFile(job)]) makePrivateDir(dirname(file));
      this.#note(job, "INFO", startLine(job));
      crawl = startProcessGroup({
        command: this.#cli.command,
        args: [...this.#cli.args, "_serve_job", writeJobSpec(job, this.#paths)],
        cwd: job.cwd,
        logFile: this.#paths.logFile(job),
      });
    } catch (error) {
      // Past the limits, or its folders or log file could not be made: the job cannot run. Saying so in its log
      // may fail too (#note then says so in the service's log).
      rmSync(this.#paths.jobSpecFile(job), { force: true });
      this.#note(job, "ERROR", `could not start: ${(error as Error).message}`);
      this.#log.error(`job ${job.id} could not start: ${(error as Error).message}`);
      this.#store.together(() => {
        this.#store.markRunning(job.id, null);
        this.#store.markFinished(job.id, "failed");
        this.#tell("ended", this.#store.get(job.id) ?? job, null);
      });
      this.#track(this.#afterEnd(job.id));
      return;
    }
    const record = this.#store.together(() => {
      this.#store.markRunning(job.id, crawl.pid ?? null);
      const started = this.#store.get(job.id) ?? job;
      this.#tell("started", started, null);
      return started;
    });
    this.#log.info(`job ${job.id} started: ${job.project}/${job.spider}, pid ${crawl.pid}`);
    const running: RunningJob = { record, crawl, cancelled: false, done: Promise.resolve() };
    running.done = crawl.exited.then((exit) => this.#ended(running, exit)).catch((error) =>
      this.#log.error(`job ${job.id}: could not record its end: ${(error as Error).message}`)
    );
    this.#running.set(job.id, running);
  }

  async #ended(running: RunningJob, exit: ProcessExit): Promise<void> {
    const { record } = running;
    clearTimeout(running.graceTimer);
    if (exit.error) this.#note(record, "ERROR", `could not start the crawl: ${exit.error.message}`);
    // Read and deleted by the job's process as it starts; still there if it never got that far.
    await rm(this.#paths.jobSpecFile(record), { force: true }).catch(() => {});
    // Its last stats tell a crawl whose monitors failed from one that failed (job_outcome.ts), and go with its alert.
    const stats = await readJobStats(this.#paths.statsFile(record));
    const outcome = jobOutcome(exit, running.cancelled, stats);
    // The end and its alert on disk together: a service killed between two commits would have lost the alert.
    this.#store.together(() => {
      this.#store.markFinished(record.id, outcome);
      this.#tell("ended", this.#store.get(record.id) ?? record, stats);
    });
    this.#running.delete(record.id);
    const how = exit.signal ? `signal ${exit.signal}` : `exit status ${exit.code}`;
    this.#log.info(`job ${record.id} ${outcome} (${how})`);
    await this.#afterEnd(record.id);
  }

  /** Tells the listener (alerts) about a job; whatever it throws is logged, never the runner's problem. */
  #tell(event: "started" | "ended", job: JobRecord, stats: Record<string, unknown> | null): void {
    if (!this.#events) return;
    try {
      if (event === "started") this.#events.started(job);
      else this.#events.ended(job, stats);
    } catch (error) {
      this.#log.error(`job ${job.id}: alert on ${event} failed: ${(error as Error).message}`);
    }
  }

  /** After a job ends: forget old jobs (deleting their files), tell whoever waits, start the next. */
  async #afterEnd(id: string): Promise<void> {
    const pruning = this.#prune();
    this.#startWaiting();
    await pruning;
    this.#notify(id);
  }

  #notify(id: string): void {
    const waiters = this.#waiters.get(id);
    if (!waiters) return;
    this.#waiters.delete(id);
    const job = this.#store.get(id);
    for (const wake of waiters) wake(job);
  }

  /** Forgets finished jobs beyond keep and deletes their log, items and stats files. */
  #prune(): Promise<void> {
    const forgotten = this.#store.prune(this.#keep);
    if (forgotten.length === 0) return Promise.resolve();
    return this.#track(Promise.all(forgotten.map((job) => this.#deleteFiles(job))).then(() => {}));
  }

  /** Remembers work in flight until it settles, so shutdown waits for it. */
  #track(chore: Promise<void>): Promise<void> {
    this.#chores.add(chore);
    chore.then(() => this.#chores.delete(chore), (error) => {
      this.#chores.delete(chore);
      this.#log.error(`job service: ${error instanceof Error ? error.message : String(error)}`);
    });
    return chore;
  }

  async #deleteFiles(job: JobRecord): Promise<void> {
    const stats = this.#paths.statsFile(job);
    // The stats writer renames STATS.json.tmp into place; a crawl killed mid-write leaves the .tmp behind.
    for (const file of [this.#paths.logFile(job), this.#paths.itemsFile(job), stats, `${stats}.tmp`]) {
      await rm(file, { force: true }).catch((error) =>
        this.#log.warning(`could not delete ${file} of forgotten job ${job.id}: ${error.message}`)
      );
    }
    this.#log.debug(`job ${job.id} forgotten (past keep=${this.#keep}), its files deleted`);
  }

  /** A line in the job's own log, where its user looks, in the crawl's log format. */
  #note(job: JobRecord, level: string, message: string): void {
    try {
      const line = jobLogFormat(job) === "scrapy"
        ? formatLogLine("scrapy", level, message, "netweir.serve")
        : formatLogLine("netweir", level, `netweir serve: ${message}`);
      appendPrivate(this.#paths.logFile(job), maskSecrets(line) + "\n");
    } catch (error) {
      this.#log.warning(`job ${job.id}: ${message} (could not write to its log: ${(error as Error).message})`);
    }
  }
}
