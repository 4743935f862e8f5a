/**
 * `netweir serve` request latency with a full job table. Prints figures; asserts nothing (they go in
 * docs/design/serve.md with the command that made them):
 *
 * - a fresh --dir whose jobs.db holds FINISHED finished jobs, written straight through JobStore (add, markRunning,
 *   markFinished), as a service that has run them would have left it;
 * - the real service started over it as `netweir serve` in a process of its own (--max-jobs 1, --keep 2000 so that
 *   none of the finished jobs is forgotten), on a free port of 127.0.0.1;
 * - REQUESTS sequential requests of each kind, median and p99: listjobs.json with the FINISHED jobs in it,
 *   listspiders.json and schedule.json on a one-file project (tests/serve/fixtures/shop/plain.ts) and on a 14-file
 *   project made for the bench (14 copies of that spider, plain1 to plain14), and listjobs.json again with the new
 *   jobs in the table. The spider files are unchanged between requests: the service reads them once (at start-up)
 *   and answers from what they declared, so these figures are the cost of a request, not of reading files.
 * - then the cost of an edit: one file of the 14 touched before each of EDITS listspiders.json requests, so each
 *   request reads that file again in one child process. The jobs the schedule requests queued are cancelled first,
 *   and the running one awaited, so that crawl processes starting one after the other do not compete with the
 *   reading child for the CPU; and besides the times, the CPU seconds the service's children used over the edits
 *   (cutime + cstime in /proc/PID/stat, Linux), per edit: the reading child's own cost, which the machine's load
 *   does not change.
 * - the status page (`/`) and `/metrics` with the FINISHED jobs and SCHEDULES periodic schedules (written straight
 *   through ScheduleStore, due next year so none fires): time per request and size of the answer.
 * - first, in this process and before the service starts, the status page's render alone (renderStatusPage over the
 *   same jobs and schedules as records), with the dashboard's buttons (a session token) and without: time per render
 *   and size, so the page's own cost shows apart from the request's.
 *
 * The scheduled jobs really run, one at a time: their spider (`plain`) starts at http://127.0.0.1:1/, which refuses
 * at once, so each is a `netweir crawl` process that ends as soon as it has started, competing with the requests
 * being timed only as much as one job in a real service would.
 *
 *   deno run -A scripts/bench/serve.ts [REQUESTS=200] [FINISHED=1000] [SCHEDULES=50]
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, utimesSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { CLI_PATH } from "../../src/cli/self.ts";
import { runtime } from "../../src/runtime/mod.ts";
import { acquireDirLock } from "../../src/serve/dir_lock.ts";
import { JobStore } from "../../src/serve/job_store.ts";
import { ScheduleStore } from "../../src/serve/schedule_store.ts";
import type { JobOutcome, JobRecord } from "../../src/serve/types.ts";
import type { ScheduleRecord } from "../../src/serve/schedule_store.ts";
import { renderStatusPage } from "../../src/serve/status_page.ts";
import { CsrfTokens } from "../../src/serve/csrf.ts";
import { REPO_ROOT } from "../../tests/helpers/cli.ts";

const args = runtime.args();
const requests = Number(args[0] ?? 200);
const finishedJobs = Number(args[1] ?? 1000);
const scheduleCount = Number(args[2] ?? 50);
if (!Number.isInteger(scheduleCount) || scheduleCount < 0) {
  throw new RangeError(`SCHEDULES must be >= 0, not ${args[2]}`);
}
if (!Number.isInteger(requests) || requests < 1) throw new RangeError(`REQUESTS must be >= 1, not ${args[0]}`);
if (!Number.isInteger(finishedJobs) || finishedJobs < 0) throw new RangeError(`FINISHED must be >= 0, not ${args[1]}`);

const SHOP = join(REPO_ROOT, "tests", "serve", "fixtures", "shop");
const PLAIN = join(SHOP, "plain.ts");
/** Files in the many-file project. */
const MANY_FILES = 14;
/** Requests that each follow an edit: every one of them starts a reading process, so fewer of them. */
const EDITS = 20;

/** A project directory of `count` spider files, plain1.ts to plainN.ts, each one spider like plain.ts. */
async function manyFileProject(dir: string, count: number): Promise<string> {
  const project = join(dir, "many");
  await mkdir(project);
  const spider = pathToFileURL(join(REPO_ROOT, "mod.ts")).href;
  for (let i = 1; i <= count; i++) {
    await writeFile(
      join(project, `plain${i}.ts`),
      `import { Spider } from ${JSON.stringify(spider)};

export class Plain${i} extends Spider {
` +
        `  override name = "plain${i}";
  override startUrls = ["http://127.0.0.1:1/"];
}
`,
    );
  }
  return project;
}
/** Requests of each kind before timing starts: module loading and first-use costs are not what is measured. */
const WARM_UP = 5;

/** The bench's old jobs: project shop, spider plain, one a second, every fourth and fifth not finished well. */
const OLD_OUTCOMES: JobOutcome[] = ["finished", "finished", "finished", "failed", "cancelled"];
const oldJobId = (i: number) => `old-${String(i).padStart(5, "0")}`;
const OLD_JOB = {
  project: "shop",
  spider: "plain",
  file: PLAIN,
  cwd: SHOP,
  priority: 0,
  settings: ["max_items=500", "concurrency=8"],
  args: ["category=fiction"],
};

/** Fills DIR/jobs.db with finished jobs of project shop, spider plain, ended a second apart, the last one now. */
async function fillJobTable(dir: string, count: number): Promise<void> {
  const lock = await acquireDirLock(dir);
  const store = new JobStore(join(dir, "jobs.db"));
  try {
    const start = Date.now() - count * 1000;
    for (let i = 0; i < count; i++) {
      const at = start + i * 1000;
      const id = oldJobId(i);
      store.add({ id, ...OLD_JOB }, at);
      store.markRunning(id, 10_000 + i, at + 100);
      store.markFinished(id, OLD_OUTCOMES[i % OLD_OUTCOMES.length], at + 900);
    }
    const schedules = new ScheduleStore(join(dir, "jobs.db"));
    try {
      const nextYear = Date.now() + 365 * 24 * 3600 * 1000;
      for (let i = 0; i < scheduleCount; i++) {
        schedules.add(
          {
            id: `nightly-${i}`,
            job: { project: "shop", spider: "plain", file: PLAIN, cwd: SHOP, priority: 0, settings: [], args: [] },
            cron: `${i % 60} 3 * * *`,
            timezone: "UTC",
            missed: "skip",
            overlap: "skip",
            origin: "http",
          },
          nextYear + i * 60_000,
          Date.now(),
        );
      }
    } finally {
      schedules.close();
    }
  } finally {
    store.close();
    await lock.release();
  }
}

/** Renders the status page over `finished` jobs and `count` schedules, as records; prints time per render and size. */
function measureRender(finished: number, count: number): void {
  const start = Date.now() - finished * 1000;
  const job = (i: number): JobRecord => ({
    id: oldJobId(i),
    ...OLD_JOB,
    schedule: null,
    state: "finished",
    outcome: OLD_OUTCOMES[i % OLD_OUTCOMES.length],
    createdAt: start + i * 1000,
    startedAt: start + i * 1000 + 100,
    endedAt: start + i * 1000 + 900,
    pid: 10_000 + i,
  });
  const jobs = Array.from({ length: finished }, (_, i) => job(i));
  const schedules = Array.from({ length: count }, (_, i): ScheduleRecord => ({
    id: `nightly-${i}`,
    job: { project: "shop", spider: "plain", file: PLAIN, cwd: SHOP, priority: 0, settings: [], args: [] },
    cron: `${i % 60} 3 * * *`,
    timezone: "UTC",
    missed: "skip",
    overlap: "skip",
    origin: "http",
    paused: i % 2 === 1,
    nextAt: Date.now() + 86_400_000,
    createdAt: Date.now(),
    lastDueAt: null,
    lastJob: null,
    lastNote: null,
  }));
  const tokens = new CsrfTokens();
  const token = tokens.token(tokens.newSession(), "");
  for (const [label, actions] of [["with buttons", { token }], ["without buttons", undefined]] as const) {
    const render = () =>
      renderStatusPage({ nodeName: "bench", projects: ["shop"], jobs, stats: new Map(), schedules, actions });
    for (let i = 0; i < WARM_UP; i++) render();
    const times: number[] = [];
    let html = "";
    for (let i = 0; i < requests; i++) {
      const begin = performance.now();
      html = render();
      times.push(performance.now() - begin);
    }
    times.sort((a, b) => a - b);
    console.log(
      `status page render, ${finished} finished, ${count} schedules, ${label}: median ` +
        `${percentile(times, 50).toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms, ` +
        `${html.length.toLocaleString("en-US")} B, ${(html.match(/<tr>/g) ?? []).length} rows, ` +
        `${(html.match(/<form /g) ?? []).length} forms (${requests} renders)`,
    );
  }
}

/** `netweir serve` as a process of its own; resolves with its URL once it says it is serving. */
function startServe(dir: string, many: string): Promise<{ child: ChildProcess; url: string }> {
  const { command, args: lead } = runtime.selfCommand(CLI_PATH);
  const child = spawn(command, [
    ...lead,
    "serve",
    "--project",
    `many=${many}`,
    "--project",
    `one=${PLAIN}`,
    "--port",
    "0",
    "--dir",
    dir,
    "--max-jobs",
    "1",
    "--keep",
    "2000",
  ], { cwd: REPO_ROOT, stdio: ["ignore", "ignore", "pipe"] });
  return new Promise((resolve, reject) => {
    let seen = "";
    const onData = (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      const match = / at (http:\/\/\S+\/) /.exec(seen);
      if (match) {
        child.stderr!.off("data", onData);
        child.stderr!.resume(); // the service logs every job; keep draining so it never blocks on a full pipe
        resolve({ child, url: match[1] });
      }
    };
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`netweir serve exited with ${code} before serving:\n${seen}`)));
  });
}

/** Milliseconds for one whole request: sent, answered, and the body read to its end. */
async function timed(url: string, init?: RequestInit): Promise<{ ms: number; body: string }> {
  const start = performance.now();
  const response = await fetch(url, init);
  const body = await response.text();
  const ms = performance.now() - start;
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}: ${body.slice(0, 300)}`);
  return { ms, body };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Times `count` sequential requests made by `make(i)`; prints median, p99 and max, and returns the last body. */
async function measure(label: string, count: number, make: (i: number) => [string, RequestInit?]): Promise<string> {
  for (let i = 0; i < WARM_UP; i++) await timed(...make(-1 - i));
  const times: number[] = [];
  let body = "";
  for (let i = 0; i < count; i++) {
    const result = await timed(...make(i));
    times.push(result.ms);
    body = result.body;
  }
  times.sort((a, b) => a - b);
  const f = (ms: number) => ms.toFixed(1).padStart(7);
  console.log(
    `${label.padEnd(44)} median ${f(percentile(times, 50))} ms   p99 ${f(percentile(times, 99))} ms   ` +
      `max ${f(times[times.length - 1])} ms   (${count} requests, last answer ${
        body.length.toLocaleString("en-US")
      } B)`,
  );
  if (body.startsWith("{") && JSON.parse(body).status !== "ok") throw new Error(`${label}: ${body.slice(0, 300)}`);
  return body;
}

function schedule(url: string, project: string, spider: string) {
  return (i: number): [string, RequestInit] => [`${url}schedule.json`, {
    method: "POST",
    body: new URLSearchParams({ project, spider, jobid: `${project}-${i < 0 ? `w${-i}` : i}` }),
  }];
}

/**
 * Cancels every waiting job and waits for the running ones to end: the service is then idle, and what is measured
 * next competes with no crawl process.
 */
async function drainJobs(url: string): Promise<void> {
  for (;;) {
    const jobs = JSON.parse(await (await fetch(`${url}listjobs.json`)).text());
    for (const job of jobs.pending) {
      const body = new URLSearchParams({ project: job.project, job: job.id });
      await (await fetch(`${url}cancel.json`, { method: "POST", body })).body?.cancel();
    }
    if (jobs.pending.length === 0 && jobs.running.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** CPU seconds of a process's children that have ended (cutime + cstime), or NaN where there is no /proc. */
function childrenCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces, in parentheses): cutime and cstime are the 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[13]) + Number(fields[14])) / 100; // USER_HZ, 100 on Linux
  } catch {
    return NaN;
  }
}

/** The 1, 5 and 15 minute load averages (zeros where the system has none, as on Windows). */
function loadAverage(): string {
  return loadavg().map((value) => value.toFixed(2)).join(", ");
}

function jobCounts(body: string): string {
  const answer = JSON.parse(body);
  return ["pending", "running", "finished"].map((state) => `${answer[state].length} ${state}`).join(", ");
}

const dir = await mkdtemp(join(tmpdir(), "netweir-serve-bench-"));
try {
  console.log(
    `netweir serve bench: ${runtime.name} ${runtime.version}, ${availableParallelism()} CPUs (${cpus()[0]?.model}), ` +
      `${requests} requests of each kind, sequential; load average ${loadAverage()}`,
  );
  measureRender(finishedJobs, scheduleCount);
  const fillStart = performance.now();
  await fillJobTable(join(dir, "serve"), finishedJobs);
  console.log(`jobs.db filled with ${finishedJobs} finished jobs in ${(performance.now() - fillStart).toFixed(0)} ms`);

  const many = await manyFileProject(dir, MANY_FILES);
  const { child, url } = await startServe(join(dir, "serve"), many);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    const before = await measure(`listjobs.json, ${finishedJobs} finished`, requests, () => [`${url}listjobs.json`]);
    console.log(`  the table then: ${jobCounts(before)}`);
    await measure("listspiders.json, 1 file", requests, () => [`${url}listspiders.json?project=one`]);
    await measure(`listspiders.json, ${MANY_FILES} files`, requests, () => [`${url}listspiders.json?project=many`]);
    await measure("schedule.json, 1 file", requests, schedule(url, "one", "plain"));
    await measure(`schedule.json, ${MANY_FILES} files`, requests, schedule(url, "many", "plain7"));
    await drainJobs(url);
    // An edit before each request: the touched file is read again, in one child process, and only that one.
    const cpuBefore = childrenCpuSeconds(child.pid!);
    await measure(`listspiders.json, ${MANY_FILES} files, 1 just edited`, EDITS, (i) => {
      const at = new Date(Date.now() + 1000 * (i + 10));
      utimesSync(join(many, "plain3.ts"), at, at);
      return [`${url}listspiders.json?project=many`];
    });
    const cpuPerEdit = (childrenCpuSeconds(child.pid!) - cpuBefore) / (EDITS + WARM_UP);
    console.log(`  CPU of the reading children: ${(cpuPerEdit * 1000).toFixed(0)} ms per edit (load ${loadAverage()})`);
    const after = await measure("listjobs.json, after scheduling", requests, () => [`${url}listjobs.json`]);
    console.log(`  the table then: ${jobCounts(after)}`);
    const page = await measure(`status page, ${scheduleCount} schedules`, requests, () => [url]);
    console.log(`  its rows: ${(page.match(/<tr>/g) ?? []).length} (finished jobs paged by 50)`);
    await measure(`/metrics, ${scheduleCount} schedules`, requests, () => [`${url}metrics`]);
    console.log(`load average at the end: ${loadAverage()} (other work on the machine shows in every figure)`);
  } finally {
    // Like Ctrl-C: the running job is cancelled, waiting ones stay in jobs.db.
    if (child.pid !== undefined) runtime.signalProcess(child.pid, "SIGINT");
    await exited;
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
