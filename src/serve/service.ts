/**
 * `netweir serve` put together: the job service (the --dir lock first, then jobs.db and the runner), the project
 * registry, the hono app and the HTTP front with its connection limits. `close()` stops accepting, cancels running
 * jobs the way Ctrl-C stops a crawl, waits for them, and releases --dir; waiting jobs stay for the next start.
 */
import { hostname } from "node:os";
import { resolve } from "node:path";
import { selfCli } from "../runtime/self_cli.ts";
import type { Logger } from "../spider/types.ts";
import { runtime } from "../runtime/mod.ts";
import { JobAlerts } from "./alerts.ts";
import { createApp } from "./app.ts";
import { applyCliSchedules } from "./cli_schedules.ts";
import { startHttpServer } from "./http_server.ts";
import { openJobService } from "./job_service.ts";
import { INSECURE_WARNING, isLoopback, type ServeOptions } from "./options.ts";
import { createProjectRegistry } from "./projects.ts";

/** A job server started by {@link startService}. */
export interface RunningService {
  /** `http://HOST:PORT/`. */
  url: string;
  /** The port it listens on (the one the system chose, for port 0). */
  port: number;
  /** Stops the service; a second call kills running jobs at once. */
  close(): Promise<void>;
}

/**
 * Starts the job server: checks the projects, takes the --dir lock, opens the job database and starts the jobs
 * found waiting, then listens. Throws UsageError for a bad project or a --dir another server holds.
 */
export async function startService(options: ServeOptions, log: Logger): Promise<RunningService> {
  // Projects are checked before --dir is touched: a typo in a path must not leave a lock or a database behind.
  const registry = createProjectRegistry(options.projects, runtime.cwd());
  const nodeName = hostname();
  const jobs = await openJobService({
    dir: resolve(runtime.cwd(), options.dir),
    maxJobs: options.maxJobs,
    keep: options.keep,
    graceMs: options.cancelGrace * 1000,
    cliCommand: selfCli(),
    log,
    deferStart: true,
    alerts: (outbox) =>
      new JobAlerts({
        nodeName,
        webhook: options.alertWebhook,
        alertStart: options.alertStart,
        log,
        outbox,
        delivery: { timeoutMs: options.alertTimeout * 1000, retryDelaysMs: options.alertRetryDelaysMs },
      }),
    alertsStopMs: options.alertTimeout * 1000,
  });
  // The runner has already logged each job it found running and marked lost (jobs.lost).
  const loopback = isLoopback(options.bind);
  const app = createApp({
    jobs: jobs.runner,
    registry,
    paths: jobs.paths,
    nodeName,
    loopback,
    auth: options.username !== undefined && options.password !== undefined
      ? { username: options.username, password: options.password }
      : undefined,
    log,
    schedules: jobs.scheduler,
    undeliveredAlerts: () => jobs.alerts?.undelivered() ?? 0,
  });
  try {
    await applyCliSchedules(options.schedules, jobs.scheduler, { registry, paths: jobs.paths });
  } catch (error) {
    await jobs.close();
    throw error;
  }
  let server;
  try {
    server = await startHttpServer((request) => app.fetch(request), {
      hostname: options.bind,
      port: options.port,
      log: (line) => log.warning(line),
      nodeName,
    });
  } catch (error) {
    await jobs.close();
    throw error;
  }
  jobs.start(); // only now: a start that could not listen must leave waiting jobs waiting
  // Read every project's spider files now, in the background, so the first schedule doesn't pay for it.
  for (const name of registry.names()) void registry.spiders(name).catch(() => {});
  if (!loopback && options.username === undefined) log.warning(INSECURE_WARNING);
  const host = server.hostname.includes(":") ? `[${server.hostname}]` : server.hostname;
  const url = `http://${host}:${server.port}/`;
  const served = registry.names().length > 0 ? registry.names().join(", ") : "no projects";
  log.info(`serving ${served} at ${url} (jobs, logs and items in ${jobs.paths.dir})`);
  let closing: Promise<void> | undefined;
  return {
    url,
    port: server.port,
    close() {
      if (closing) return jobs.close(); // a second stop: the job service kills running jobs at once
      closing = (async () => {
        await server.close();
        // Also gives the alerts of the jobs the stop cancelled one webhook try's time to land.
        await jobs.close();
      })();
      return closing;
    },
  };
}
