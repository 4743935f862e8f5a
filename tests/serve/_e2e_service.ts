/**
 * The end-to-end serve tests' shared pieces: `netweir serve` started as a real process (cli.ts) on a free port of
 * 127.0.0.1, HTTP to it with fetch and with curl, and waiting on what its API says about jobs.
 *
 * ```ts
 * const service = await startServe(dir, ["--max-jobs", "1"]);
 * try {
 *   const { jobid } = await service.post("schedule.json", { project: "shop", spider: "books", site });
 *   await service.waitForJob(String(jobid), "finished");
 * } finally {
 *   await service.stop();
 * }
 * ```
 */
import { runCommand } from "../helpers/command.ts";
import { fileURLToPath } from "node:url";
import { type RunningProcess, type RunOptions, type RunResult, startCli } from "../helpers/cli.ts";
import { sleep } from "../helpers/wait.ts";
import { JobStore } from "../../src/serve/job_store.ts";
import { servePaths } from "../../src/serve/paths.ts";
import { join } from "node:path";
import { type FixtureSite, startFixtureSite } from "../helpers/fixture_site.ts";
import { sendSignal } from "../helpers/signal.ts";
import { processGone } from "./_job_helpers.ts";
import { withTempDir } from "./_setup.ts";

/** tests/serve/fixtures/e2e: the project the end-to-end tests serve as `shop` (books.ts, stubborn.ts). */
export const E2E_PROJECT: string = fileURLToPath(new URL("./fixtures/e2e", import.meta.url));

/**
 * Puts a waiting job of the shop project's books spider straight into DIR/jobs.db, as a service that stopped before
 * it could start it would have left it. `args` are its spider arguments ("NAME=VALUE").
 */
export function storeWaitingJob(dir: string, id: string, args: string[] = []): void {
  const store = new JobStore(servePaths(dir).jobsDb);
  try {
    const file = `${E2E_PROJECT}/books.ts`;
    store.add({ id, project: "shop", spider: "books", file, cwd: E2E_PROJECT, priority: 0, settings: [], args });
  } finally {
    store.close();
  }
}

/** A job as listjobs.json lists it. */
export interface ListedJob {
  id: string;
  project: string;
  spider: string;
  pid: number | null;
  start_time: string | null;
  end_time: string | null;
  log_url: string;
  items_url: string;
  outcome: string | null;
}

export type JobList = Record<"pending" | "running" | "finished", ListedJob[]>;

/**
 * Asks `check` every 100 ms until it returns something other than undefined. A check that throws (a connection
 * refused while the service is busy, say) is asked again; after `timeoutMs` (a guard, not a measure) this fails with
 * the last error.
 */
export async function poll<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await sleep(100);
  }
  throw new Error(`gave up waiting for ${what} after ${timeoutMs} ms${last ? `; last error: ${last}` : ""}`);
}

/** A form or query: repeated names as arrays (`setting: ["a=1", "b=2"]`). */
export type Params = Record<string, string | string[]>;

/** A running `netweir serve`. */
export interface ServeProcess {
  process: RunningProcess;
  /** `http://127.0.0.1:PORT/`. */
  url: string;
  port: number;
  dir: string;
  /** GET an endpoint (`listjobs.json`) with a query; resolves with the JSON answer whatever its status. */
  get(endpoint: string, query?: Params): Promise<Record<string, unknown>>;
  /** POST a form-encoded body to an endpoint; resolves with the JSON answer whatever its status. */
  post(endpoint: string, form: Params): Promise<Record<string, unknown>>;
  /** GET a path (a log_url or items_url) as text. */
  text(path: string): Promise<{ status: number; body: string }>;
  /** listjobs.json's three lists. */
  jobs(): Promise<JobList>;
  /** The job as listed once it is in `state` (and, when given, matches `check`); fails after 60 s. */
  waitForJob(id: string, state: keyof JobList, check?: (job: ListedJob) => boolean): Promise<ListedJob>;
  /** Ctrl-C: SIGINT, then waits for it to exit. */
  stop(): Promise<RunResult>;
}

function body(params: Params): URLSearchParams {
  const out = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    for (const one of Array.isArray(value) ? value : [value]) out.append(name, one);
  }
  return out;
}

/** The URL the service says it serves at, from its start-up line. */
const SERVING = /serving .+? at (http:\/\/\S+\/) /;

/**
 * Starts `netweir serve --project shop=tests/serve/fixtures/e2e --port 0 --dir DIR ...extra` and resolves once it
 * listens. `--port 0` lets the system pick a free port, read back from the line the service logs.
 */
export async function startServe(dir: string, extra: string[] = [], options: RunOptions = {}): Promise<ServeProcess> {
  const serve = startCli(
    ["serve", "--project", `shop=${E2E_PROJECT}`, "--port", "0", "--dir", dir, ...extra],
    { timeoutMs: 120_000, ...options },
  );
  let line: string;
  try {
    line = await serve.waitFor(SERVING, 30_000);
  } catch (error) {
    await serve.kill("SIGKILL").catch(() => {});
    await serve.wait().catch(() => {});
    throw error;
  }
  const advertised = new URL(SERVING.exec(line)![1]);
  // Bound to 0.0.0.0 it says so; the tests still talk to 127.0.0.1 only.
  const url = `http://127.0.0.1:${advertised.port}/`;
  const answer = async (response: Response) => {
    const text = await response.text();
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new Error(`not JSON (${response.status}): ${text}`);
    }
  };
  const service: ServeProcess = {
    process: serve,
    url,
    port: Number(advertised.port),
    dir,
    get: async (endpoint, query = {}) => {
      const search = body(query).toString();
      return answer(await fetch(`${url}${endpoint}${search ? `?${search}` : ""}`));
    },
    post: async (endpoint, form) => answer(await fetch(`${url}${endpoint}`, { method: "POST", body: body(form) })),
    text: async (path) => {
      const response = await fetch(new URL(path, url));
      return { status: response.status, body: await response.text() };
    },
    jobs: async () => {
      const listed = await service.get("listjobs.json");
      if (listed.status !== "ok") throw new Error(`listjobs.json: ${JSON.stringify(listed)}`);
      return listed as unknown as JobList;
    },
    waitForJob: (id, state, check = () => true) =>
      poll(`job ${id} to be ${state}`, async () => {
        const job = (await service.jobs())[state].find((one) => one.id.toLowerCase() === id.toLowerCase());
        return job && check(job) ? job : undefined;
      }),
    stop: async () => {
      await serve.kill("SIGINT").catch(() => {});
      return await serve.wait();
    },
  };
  return service;
}

/** Stops a service in a test's `finally`: Ctrl-C, and SIGKILL if it has not exited 30 s later. */
export async function stopQuietly(service: ServeProcess | undefined): Promise<void> {
  if (!service) return;
  const guard = setTimeout(() => void service.process.kill("SIGKILL").catch(() => {}), 30_000);
  try {
    await service.stop().catch(() => {});
  } finally {
    clearTimeout(guard);
  }
}

/** What curl printed and how it exited. */
export interface CurlResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `curl ARGS...` (the real one) and waits for it. */
export function curl(args: string[]): Promise<CurlResult> {
  return runCommand("curl", ["--silent", "--show-error", "--max-time", "30", ...args]);
}

/** curl's answer split from the status code `-w '\n%{http_code}'` appends. */
export async function curlWithStatus(args: string[]): Promise<{ status: number; body: string }> {
  const result = await curl([...args, "-w", "\n%{http_code}"]);
  if (result.code !== 0) throw new Error(`curl ${args.join(" ")} failed (${result.code}): ${result.stderr}`);
  const cut = result.stdout.lastIndexOf("\n");
  return { status: Number(result.stdout.slice(cut + 1)), body: result.stdout.slice(0, cut) };
}

/** The lines of a JSON Lines text, each parsed (a line that is not whole JSON throws). */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
}

/** What a test that kills and restarts the service works with: see {@link withRestarts}. */
export interface Restarts {
  site: FixtureSite;
  /** The --dir every service of the test shares. */
  serveDir: string;
  /** A file not there yet: the e2e spider's jobs given `gate` keep running until the test writes it. */
  gate: string;
  /** Starts a service on serveDir; every service started is stopped at the end, whatever happens. */
  start(extra?: string[], options?: RunOptions): Promise<ServeProcess>;
  /** A crawl that outlives its killed service: killed at the end if it still runs. */
  orphan(pid: number): void;
}

/**
 * Runs `body` with a fixture site of `books` books and a temp directory for services started and killed one after
 * the other on one --dir; afterwards the services are stopped (the last started first), the site closed and any
 * orphaned crawl killed.
 */
export async function withRestarts(books: number, body: (restarts: Restarts) => Promise<void>): Promise<void> {
  const site = await startFixtureSite({ books });
  const services: ServeProcess[] = [];
  const orphans: number[] = [];
  try {
    await withTempDir(async (dir) => {
      const serveDir = join(dir, "serve");
      await body({
        site,
        serveDir,
        gate: join(dir, "gate"),
        async start(extra = [], options = {}) {
          const service = await startServe(serveDir, extra, options);
          services.push(service);
          return service;
        },
        orphan: (pid) => void orphans.push(pid),
      });
    });
  } finally {
    for (const service of services.reverse()) await stopQuietly(service);
    await site.close();
    for (const pid of orphans) if (!(await processGone(pid))) await sendSignal(pid, "SIGKILL").catch(() => {});
  }
}
