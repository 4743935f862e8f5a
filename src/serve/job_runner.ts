/**
 * Runs the jobs of `netweir serve`: at most maxJobs `netweir crawl` processes at once, the waiting job with the
 * highest priority (then the oldest) first, each in a process group of its own. Cancelling stops a crawl the way
 * Ctrl-C does and kills it with its children if it has not stopped after the grace period (at once on a second
 * cancel). The store says what is waiting; this class only remembers the processes it started.
 */
import { chmodSync, rmSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { formatLogLine, type LogFormat, maskSecrets } from "../log.ts";
import type { Logger } from "../spider/types.ts";
import { jobLimitProblem } from "./job_limits.ts";
import type { JobCounts, JobStore } from "./job_store.ts";
import type { JobEvents } from "./alerts.ts";
import { jobOutcome } from "./job_outcome.ts";
import { appendPrivate, makePrivateDir, PRIVATE_DIR, PRIVATE_FILE } from "./private_files.ts";
import { type GroupProcess, type ProcessExit, startProcessGroup } from "./process_group.ts";
import { readJobStats, readJobStatsSync } from "./stats.ts";
import { maskArgument, maskedPairs, maskSetting } from "./secrets.ts";
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

/**
 * `netweir crawl` arguments for a job; every path absolute, as the crawl runs in the project's directory. They go to
 * the job's process in its spec file (writeJobSpec), not on its command line.
 */
export function crawlArgs(job: JobRecord, paths: ServePaths): string[] {
  return [
    "crawl",
    job.file,
    "--spider",
    job.spider,
    // Scrapy's log format unless the job chose one (jobLogFormat says why).
    ...(givenLogFormat(job) === undefined ? ["-s", "log_format=scrapy"] : []),
    ...job.settings.flatMap((setting) => ["-s", setting]),
    ...job.args.flatMap((arg) => ["-a", arg]),
    "-o",
    resolve(paths.itemsFile(job)),
    "--stats-file",
    resolve(paths.statsFile(job)),
  ];
}

/**
 * What a job's process is given in its spec file: the `netweir crawl` arguments, and the project's data directory
 * and the job's settings, for checking its file settings again before the crawl opens them.
 */
export interface JobSpec {
  argv: string[];
  dataDir: string;
  settings: string[];
}

/**
 * Writes the job's crawl arguments to its spec file, readable by this user alone (the folder too), for
 * `netweir _serve_job SPEC` to read and delete: a command line can be read by every user of the machine, and a job's
 * settings may hold passwords (http_auth, a proxy's, a Redis URL's).
 */
function writeJobSpec(job: JobRecord, paths: ServePaths): string {
  const file = paths.jobSpecFile(job);
  makePrivateDir(dirname(file));
  chmodSync(dirname(file), PRIVATE_DIR);
  const spec: JobSpec = { argv: crawlArgs(job, paths), dataDir: paths.dataDir(job.project), settings: job.settings };
  writeFileSync(file, JSON.stringify(spec), { mode: PRIVATE_FILE });
  return file;
}

/** The first line of a job's log: what it runs, with what, secrets masked. */
function startLine(job: JobRecord): string {
  const settings = JSON.stringify(maskedPairs(job.settings, maskSetting));
  const args = JSON.stringify(maskedPairs(job.args, maskArgument));
  return `job ${job.id} of project ${job.project}: spider ${job.spider} from ${job.file}, settings ${settings}, ` +
    `arguments ${args}`;
}

/** The log_format a job was scheduled with, if any (the last one given wins, as with -s). */
function givenLogFormat(job: Pick<JobRecord, "settings">): string | undefined {
  return job.settings.map((pair) => /^(?:log_format|logFormat)=(.*)$/.exec(pair)?.[1]).filter(Boolean).at(-1);
}

/**
 * The log format of a job: Scrapy's unless the job was scheduled with another, because the tools scrapyd users read
 * logs with (ScrapydWeb's LogParser) find the time, the level and the progress lines only in Scrapy's format.
 */
function jobLogFormat(job: Pick<JobRecord, "settings">): LogFormat {
  return (givenLogFormat(job) ?? "scrapy") === "scrapy" ? "scrapy" : "netweir";
}

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
    const lost = this.#store.markRunningAsLost();
    for (const job of lost) {
      this.#log.warning(`job ${job.id} (${job.project}/${job.spider}) was running when the service stopped: lost`);
      // Read now: pruning below may forget the job and delete its stats.
      this.#tell("ended", this.#store.get(job.id) ?? job, readJobStatsSync(this.#paths.statsFile(job)));
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
      this.#store.markFinished(job.id, "cancelled");
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
      this.#store.markRunning(job.id, null);
      this.#store.markFinished(job.id, "failed");
      this.#note(job, "ERROR", `could not start: ${(error as Error).message}`);
      this.#log.error(`job ${job.id} could not start: ${(error as Error).message}`);
      this.#tell("ended", this.#store.get(job.id) ?? job, null);
      this.#track(this.#afterEnd(job.id));
      return;
    }
    this.#store.markRunning(job.id, crawl.pid ?? null);
    const record = this.#store.get(job.id) ?? job;
    this.#log.info(`job ${job.id} started: ${job.project}/${job.spider}, pid ${crawl.pid}`);
    this.#tell("started", record, null);
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
    this.#store.markFinished(record.id, outcome);
    this.#running.delete(record.id);
    const how = exit.signal ? `signal ${exit.signal}` : `exit status ${exit.code}`;
    this.#log.info(`job ${record.id} ${outcome} (${how})`);
    this.#tell("ended", this.#store.get(record.id) ?? record, stats);
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
