/**
 * `netweir serve` options, checked before anything starts: a bad value is a UsageError (exit 2), and listening
 * where other machines can reach the service without a login is refused unless --insecure-no-auth says so.
 */
import { availableParallelism } from "node:os";
import { UsageError } from "../errors.ts";
import { parseScheduleSpec } from "./cli_schedules.ts";
import { maskWebhookUrl } from "./secrets.ts";

/** The options of `netweir serve`, checked (see {@link checkServeOptions}). */
export interface ServeOptions {
  /** "NAME=PATH" or bare PATH, one per project. */
  projects: string[];
  /** The address to listen on (127.0.0.1 by default). */
  bind: string;
  /** The port to listen on; 0 lets the system choose one. */
  port: number;
  /** The folder of the job database, the logs and the items (--dir). */
  dir: string;
  /** Jobs that run at once; more wait their turn. */
  maxJobs: number;
  /** How many finished jobs are remembered (the oldest are forgotten, with their logs and items). */
  keep: number;
  /** The HTTP basic auth user name, when a login is asked for. */
  username?: string;
  /** The HTTP basic auth password, when a login is asked for. */
  password?: string;
  /** Listen where other machines can reach the service without a login (--insecure-no-auth). */
  insecureNoAuth: boolean;
  /** Seconds a cancelled job has to stop before it is killed with its children (30; shorter in tests). */
  cancelGrace: number;
  /** --schedule: "PROJECT/SPIDER@CRON", one per periodic schedule. */
  schedules: string[];
  /** --alert-webhook (else NETWEIR_SERVE_ALERT_WEBHOOK): called when any job without a webhook of its own ends. */
  alertWebhook?: string;
  /** --alert-start: call the service's webhook when jobs start too. */
  alertStart: boolean;
  /** --alert-timeout: seconds one webhook call may take (10). */
  alertTimeout: number;
  /** Waits between webhook tries (2 s, then 10 s; shorter in tests, no option). */
  alertRetryDelaysMs?: readonly number[];
}

/** What the command line and the environment give, before checking: text, as typed. */
export interface RawServeOptions {
  /** --project, once per project. */
  project?: string[];
  /** --bind. */
  bind?: string;
  /** --port. */
  port?: string;
  /** --dir. */
  dir?: string;
  /** --max-jobs. */
  maxJobs?: string;
  /** --keep. */
  keep?: string;
  /** --username (else NETWEIR_SERVE_USERNAME). */
  username?: string;
  /** --password (else NETWEIR_SERVE_PASSWORD). */
  password?: string;
  /** --insecure-no-auth. */
  insecureNoAuth?: boolean;
  /** Seconds a cancelled job has to stop (30 by default). */
  cancelGrace?: string;
  /** --schedule, once per schedule. */
  schedule?: string[];
  /** --alert-webhook (else NETWEIR_SERVE_ALERT_WEBHOOK). */
  alertWebhook?: string;
  /** --alert-start. */
  alertStart?: boolean;
  /** --alert-timeout, seconds. */
  alertTimeout?: string;
}

function wholeNumber(name: string, text: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d+$/.test(text.trim())) throw new UsageError(`${name} must be a whole number, not ${JSON.stringify(text)}`);
  const value = Number(text);
  if (value < min || value > max) throw new UsageError(`${name} must be between ${min} and ${max}, not ${value}`);
  return value;
}

/** Whether an address only this machine can reach: 127.0.0.0/8, ::1, localhost. */
export function isLoopback(address: string): boolean {
  const host = address.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  return host === "localhost" || host === "::1" || /^127(?:\.\d{1,3}){3}$/.test(host) ||
    /^::ffff:127(?:\.\d{1,3}){3}$/.test(host);
}

/** The service's webhook: an http(s) URL, refused by its masked form (the URL is a secret). */
function checkWebhook(url: string | undefined): string | undefined {
  if (url === undefined || url === "") return undefined;
  const parsed = URL.parse(url);
  if (parsed && (parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.host !== "") return url;
  throw new UsageError(`--alert-webhook must be an http:// or https:// URL, not ${maskWebhookUrl(url)}`);
}

/**
 * Checks the options; `env` supplies NETWEIR_SERVE_USERNAME, NETWEIR_SERVE_PASSWORD and
 * NETWEIR_SERVE_ALERT_WEBHOOK.
 */
export function checkServeOptions(raw: RawServeOptions, env: (name: string) => string | undefined): ServeOptions {
  const username = raw.username ?? env("NETWEIR_SERVE_USERNAME") ?? undefined;
  const password = raw.password ?? env("NETWEIR_SERVE_PASSWORD") ?? undefined;
  if ((username === undefined) !== (password === undefined) || username === "" || password === "") {
    throw new UsageError("give both a username and a password (NETWEIR_SERVE_USERNAME and NETWEIR_SERVE_PASSWORD)");
  }
  const bind = raw.bind ?? "127.0.0.1";
  const insecureNoAuth = raw.insecureNoAuth ?? false;
  if (!isLoopback(bind) && username === undefined && !insecureNoAuth) {
    throw new UsageError(
      `refusing to listen on ${bind} without a username and password: set NETWEIR_SERVE_USERNAME and ` +
        "NETWEIR_SERVE_PASSWORD, or give --insecure-no-auth if you really mean it",
    );
  }
  // No --project at all is a service with nothing to run yet, as a fresh scrapyd is: listprojects.json answers [].
  const projects = raw.project ?? [];
  for (const spec of raw.schedule ?? []) parseScheduleSpec(spec);
  return {
    projects,
    bind,
    port: wholeNumber("--port", raw.port ?? "6800", 0, 65535),
    dir: raw.dir ?? "netweir-serve",
    maxJobs: wholeNumber("--max-jobs", raw.maxJobs ?? String(availableParallelism()), 1),
    keep: wholeNumber("--keep", raw.keep ?? "100", 0),
    username,
    password,
    insecureNoAuth,
    cancelGrace: wholeNumber("--cancel-grace", raw.cancelGrace ?? "30", 0, 3600),
    schedules: raw.schedule ?? [],
    alertWebhook: checkWebhook(raw.alertWebhook ?? env("NETWEIR_SERVE_ALERT_WEBHOOK")),
    alertStart: raw.alertStart ?? false,
    alertTimeout: wholeNumber("--alert-timeout", raw.alertTimeout ?? "10", 1, 600),
  };
}

/** The warning `--insecure-no-auth` starts with, when the address is reachable from elsewhere. */
export const INSECURE_WARNING = "listening without a username and password on an address other machines can reach: " +
  "anyone who can reach the port can run your spiders with any settings, and any web page open in a browser that " +
  "can reach it can read the job list, logs and items through DNS rebinding, which the service cannot tell apart";
