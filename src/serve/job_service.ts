/**
 * The job side of `netweir serve`, opened in the order the spec asks: the dir lock first (a second service on the
 * same --dir stops there, before it touches anything), then DIR/jobs.db, then the runner, which marks jobs a dead
 * service left running as lost and starts waiting ones.
 */
import type { Logger } from "../spider/types.ts";
import { acquireDirLock } from "./dir_lock.ts";
import type { AlertOutbox } from "./alert_outbox.ts";
import type { JobAlerts } from "./alerts.ts";
import { type CliCommand, JobRunner } from "./job_runner.ts";
import { JobStore } from "./job_store.ts";
import { Scheduler } from "./scheduler.ts";
import { ScheduleStore } from "./schedule_store.ts";
import { servePaths } from "./paths.ts";
import { DEFAULT_WEBHOOK_TIMEOUT_MS } from "./webhooks.ts";
import type { JobRecord, ServePaths } from "./types.ts";

export interface OpenJobServiceOptions {
  /** --dir (made absolute: jobs run in their project's directory). */
  dir: string;
  /** --max-jobs. */
  maxJobs: number;
  /** --keep (default 100). */
  keep?: number;
  /** Time a cancelled crawl has to stop before it is killed (default 30 000 ms). */
  graceMs?: number;
  /** How to run `netweir`: runtime.selfCommand(path of cli.ts). */
  cliCommand: CliCommand;
  log: Logger;
  /** The clock schedules are due by (Date.now; a test's own). */
  now?: () => number;
  /**
   * Leaves the runner stopped until `start()`: the service starts jobs only once it listens, so a start that
   * fails (a port in use) touches no job.
   */
  deferStart?: boolean;
  /**
   * The service's alerts, made once jobs.db is open: told when jobs start and end, their undelivered alerts kept in
   * jobs.db's outbox until the next start.
   */
  alerts?: (outbox: AlertOutbox) => JobAlerts;
  /** How long the stop waits for webhook calls under way (default 10 000 ms: one try's timeout). */
  alertsStopMs?: number;
}

/** An open job service: the runner (the HTTP app's JobService), where things are, and how to stop. */
export interface OpenedJobService {
  runner: JobRunner;
  /** The periodic schedules; their timer runs from start() to close(). */
  scheduler: Scheduler;
  /** The alerts, when `alerts` was given. */
  alerts: JobAlerts | undefined;
  paths: ServePaths;
  /** Jobs found running at start-up, now finished with outcome lost (empty with deferStart: start() says). */
  lost: JobRecord[];
  /** With deferStart: marks jobs left running as lost and starts waiting ones; returns the lost ones. */
  start(): JobRecord[];
  /**
   * Cancels running jobs (SIGINT, killed after the grace period), waits for them, closes jobs.db and releases the
   * dir. Waiting jobs stay for the next start. A second call kills running jobs at once; both resolve together.
   */
  close(): Promise<void>;
}

/** Opens the job service on `options.dir`; throws if another service holds the dir. */
export async function openJobService(options: OpenJobServiceOptions): Promise<OpenedJobService> {
  const lock = await acquireDirLock(options.dir);
  let store: JobStore | undefined;
  let scheduleStore: ScheduleStore | undefined;
  let outbox: AlertOutbox | undefined;
  try {
    const paths = servePaths(lock.dir);
    store = new JobStore(paths.jobsDb);
    scheduleStore = new ScheduleStore(paths.jobsDb);
    // On the job table's connection: a job's end and its alert are written in one transaction.
    outbox = store.alertOutbox();
    const alerts = options.alerts?.(outbox);
    const runner = new JobRunner({
      store,
      paths,
      maxJobs: options.maxJobs,
      keep: options.keep,
      graceMs: options.graceMs,
      cliCommand: options.cliCommand,
      log: options.log,
      events: alerts,
    });
    const scheduler = new Scheduler({
      store: scheduleStore,
      wake: () => runner.wake(),
      log: options.log,
      now: options.now,
    });
    // Jobs left running are marked lost before a schedule looks at its last job.
    const start = () => {
      // Alerts a killed service left undelivered go before the lost jobs' own.
      alerts?.resume();
      const lost = runner.start();
      scheduler.start();
      return lost;
    };
    const lost = options.deferStart ? [] : start();
    const openStore = store;
    const openSchedules = scheduleStore;
    const openOutbox = outbox;
    let closing: Promise<void> | undefined;
    return {
      runner,
      scheduler,
      alerts,
      paths,
      lost,
      start,
      close() {
        if (closing) {
          void runner.shutdown(); // the second call: kill at once
          return closing;
        }
        scheduler.stop();
        closing = runner.shutdown().finally(async () => {
          // The alerts of the jobs the stop cancelled get one try's time; what is left waits for the next start.
          await alerts?.stop(options.alertsStopMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS).catch(() => {});
          openOutbox.close();
          openSchedules.close();
          openStore.close();
          await lock.release();
        });
        return closing;
      },
    };
  } catch (error) {
    outbox?.close();
    scheduleStore?.close();
    store?.close();
    await lock.release();
    throw error;
  }
}
