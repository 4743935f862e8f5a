/**
 * Periodic schedules on an injected clock: the real job service (jobs.db, the runner starting the fake crawl) and the
 * real app, with time moved by hand, so a nightly schedule fires in milliseconds. e2e_schedules_test.ts fires one in
 * real time and kills the service at a due time.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createApp } from "../../src/serve/app.ts";
import { type OpenedJobService, openJobService } from "../../src/serve/job_service.ts";
import { FAKE_CRAWL, memoryLog, withTempDir } from "./_job_helpers.ts";
import { fixtureRegistry, form } from "./_setup.ts";

/** 2026-12-04 02:59:59.900 UTC: a tenth of a second before a 3 o'clock schedule is due. */
const BEFORE_THREE = Date.UTC(2026, 11, 4, 2, 59, 59, 900);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Clocked {
  service: OpenedJobService;
  page(path: string): Promise<string>;
  request(path: string, pairs?: [string, string][]): Promise<Record<string, unknown>>;
  /** Moves the clock to `at` and lets the scheduler look. */
  at(at: number): void;
  log: ReturnType<typeof memoryLog>;
}

/** Opens the job service on `dir` with a clock the test moves, and the app over it. */
async function openClocked(dir: string, start: number): Promise<Clocked> {
  let now = start;
  const log = memoryLog();
  const service = await openJobService({
    dir,
    maxJobs: 4,
    cliCommand: FAKE_CRAWL,
    log,
    now: () => now,
  });
  const app = createApp({
    jobs: service.runner,
    registry: fixtureRegistry(),
    paths: service.paths,
    nodeName: "box",
    loopback: true,
    schedules: service.scheduler,
  });
  return {
    service,
    log,
    async page(path) {
      return await (await app.request(`http://127.0.0.1${path}`)).text();
    },
    async request(path, pairs) {
      const response = await app.request(`http://127.0.0.1${path}`, pairs ? form(pairs) : undefined);
      return await response.json();
    },
    at(at) {
      now = at;
      service.scheduler.tick();
    },
  };
}

async function withClocked(start: number, body: (clocked: Clocked, dir: string) => Promise<void>): Promise<void> {
  await withTempDir(async (dir) => {
    const clocked = await openClocked(join(dir, "serve"), start);
    try {
      await body(clocked, dir);
    } finally {
      await clocked.service.close();
    }
  });
}

const NIGHTLY: [string, string][] = [
  ["project", "shop"],
  ["spider", "books"],
  ["cron", "0 3 * * *"],
  ["timezone", "UTC"],
  ["schedule", "nightly"],
];

/** The jobs a schedule fired, as listjobs.json gives them (every state). */
async function firedJobs(clocked: Clocked, schedule: string): Promise<Record<string, unknown>[]> {
  const lists = await clocked.request("/listjobs.json") as Record<string, Record<string, unknown>[]>;
  return [...lists.pending, ...lists.running, ...lists.finished].filter((job) => job.schedule === schedule);
}

Deno.test("a nightly schedule fires one job at its due time on an injected clock, named after it and linked to it", async () => {
  await withClocked(BEFORE_THREE, async (clocked) => {
    const added = await clocked.request("/addschedule.json", [...NIGHTLY, ["setting", "max_items=5"], ["items", "1"]]);
    assert.deepEqual(added, {
      node_name: "box",
      status: "ok",
      schedule: "nightly",
      next_run: "2026-12-04T03:00:00.000Z",
    });
    clocked.at(BEFORE_THREE + 50);
    assert.deepEqual(await firedJobs(clocked, "nightly"), [], "not due yet");
    clocked.at(BEFORE_THREE + 100);
    clocked.at(BEFORE_THREE + 200);
    const fired = await firedJobs(clocked, "nightly");
    assert.deepEqual(fired.map((job) => job.id), ["nightly-20261204T030000Z"], "fired once");
    const job = await clocked.service.runner.whenFinished("nightly-20261204T030000Z");
    assert.equal(job?.outcome, "finished");
    assert.deepEqual(job.settings, ["max_items=5"]);
    assert.deepEqual(job.args, ["items=1"]);
    const { schedules } = await clocked.request("/listschedules.json?project=shop") as {
      schedules: Record<string, unknown>[];
    };
    assert.equal(schedules.length, 1);
    assert.deepEqual(
      {
        next: schedules[0].next_run,
        last: schedules[0].last_run,
        job: schedules[0].last_job,
        settings: schedules[0].settings,
      },
      {
        next: "2026-12-05T03:00:00.000Z",
        last: "2026-12-04T03:00:00.000Z",
        job: "nightly-20261204T030000Z",
        settings: { max_items: "5" },
      },
    );
    const status = await clocked.page("/");
    const row = status.match(/<table class="list-schedules">[\s\S]*?<\/table>/)?.[0] ?? "";
    assert.match(row, /<code>nightly<\/code>.*<code>0 3 \* \* \*<\/code> <span class="dim">UTC<\/span>/);
    assert.match(row, /href="\/job\/shop\/nightly-20261204T030000Z"/, "its last job, linked");
    clocked.at(BEFORE_THREE + DAY + 100);
    assert.deepEqual((await firedJobs(clocked, "nightly")).map((job) => job.id).sort(), [
      "nightly-20261204T030000Z",
      "nightly-20261205T030000Z",
    ]);
  });
});

Deno.test("a schedule is checked when it is added, as schedule.json checks a job", async () => {
  await withClocked(BEFORE_THREE, async (clocked) => {
    const refused = async (extra: [string, string][], pattern: RegExp, base = NIGHTLY) => {
      const names = new Set(extra.map(([name]) => name));
      const answer = await clocked.request("/addschedule.json", [
        ...base.filter(([name]) => !names.has(name)),
        ...extra,
      ]);
      assert.equal(answer.status, "error", JSON.stringify(extra));
      assert.match(String(answer.message), pattern);
    };
    await refused([["setting", "concurrency=0"]], /concurrency/);
    await refused([["setting", "no_such_setting=1"]], /no_such_setting/);
    await refused(
      [["setting", "proxy_rotation=per_request"]],
      /proxy/,
      NIGHTLY.map(([k, v]) => [k, k === "spider" ? "plain" : v]),
    );
    await refused([["cron", "61 3 * * *"]], /cron expression "61 3 \* \* \*" is invalid: .*minute/);
    await refused([["cron", "0 3 * *"]], /five fields/);
    await refused([["cron", "@fortnightly"]], /@hourly/);
    await refused([["timezone", "Mars/Olympus"]], /time zone "Mars\/Olympus" is unknown/);
    await refused([["jobid", "mine"]], /jobid/);
    await refused([["missed", "later"]], /'missed' parameter is invalid: "later" is not run or skip/);
    await refused([["overlap", "maybe"]], /'overlap' parameter is invalid/);
    await refused([["spider", "nobody"]], /spider 'nobody' not found/);
    await refused([["cron", ""]], /'cron' parameter is required/);
    await refused([["schedule", "../x"]], /'schedule' parameter is invalid/);
    const { schedules } = await clocked.request("/listschedules.json") as { schedules: unknown[] };
    assert.deepEqual(schedules, [], "nothing refused was kept");
    assert.equal((await clocked.request("/addschedule.json", NIGHTLY)).status, "ok");
    const again = await clocked.request(
      "/addschedule.json",
      NIGHTLY.map(([k, v]) => [k, k === "schedule" ? "NIGHTLY" : v]),
    );
    assert.match(String(again.message), /schedule 'nightly' already exists/);
  });
});

Deno.test("a due time whose last job still runs is skipped and says so, unless overlap=queue", async () => {
  await withClocked(BEFORE_THREE, async (clocked, dir) => {
    const gate = join(dir, "gate");
    const hourly = (name: string, overlap: string): [string, string][] => [
      ["project", "shop"],
      ["spider", "books"],
      ["cron", "@hourly"],
      ["timezone", "UTC"],
      ["schedule", name],
      ["overlap", overlap],
      ["wait_for", gate],
    ];
    assert.equal((await clocked.request("/addschedule.json", hourly("skipper", "skip"))).status, "ok");
    assert.equal((await clocked.request("/addschedule.json", hourly("queuer", "queue"))).status, "ok");
    clocked.at(BEFORE_THREE + 100); // 03:00: both fire; their jobs wait for the gate
    clocked.at(BEFORE_THREE + HOUR + 100); // 04:00: the first is still running
    assert.deepEqual((await firedJobs(clocked, "skipper")).map((job) => job.id), ["skipper-20261204T030000Z"]);
    assert.deepEqual((await firedJobs(clocked, "queuer")).map((job) => job.id).sort(), [
      "queuer-20261204T030000Z",
      "queuer-20261204T040000Z",
    ]);
    const note = "the run due at 2026-12-04T04:00:00.000Z was skipped: job skipper-20261204T030000Z is still running";
    assert.ok(clocked.log.lines.includes(`WARNING schedule skipper: ${note}`), clocked.log.lines.join("\n"));
    const { schedules } = await clocked.request("/listschedules.json") as { schedules: Record<string, unknown>[] };
    assert.equal(schedules.find((s) => s.id === "skipper")?.last_note, note);
    await writeFile(gate, "");
    await clocked.service.runner.whenFinished("skipper-20261204T030000Z");
    clocked.at(BEFORE_THREE + 2 * HOUR + 100); // 05:00: it has ended, so this one fires
    assert.equal((await firedJobs(clocked, "skipper")).length, 2);
  });
});

Deno.test("pausing stops a schedule firing, resuming starts from the next due time, deleting keeps its jobs", async () => {
  await withClocked(BEFORE_THREE, async (clocked) => {
    await clocked.request("/addschedule.json", NIGHTLY);
    const key: [string, string][] = [["project", "shop"], ["schedule", "nightly"]];
    const paused = await clocked.request("/pauseschedule.json", key);
    assert.deepEqual([paused.status, paused.paused, paused.next_run], ["ok", true, null]);
    clocked.at(BEFORE_THREE + 100);
    clocked.at(BEFORE_THREE + DAY + 100);
    assert.deepEqual(await firedJobs(clocked, "nightly"), [], "paused over two due times");
    const resumed = await clocked.request("/resumeschedule.json", key);
    assert.equal(resumed.next_run, "2026-12-06T03:00:00.000Z", "the due times passed while paused are not run");
    clocked.at(BEFORE_THREE + 2 * DAY + 100);
    assert.equal((await firedJobs(clocked, "nightly")).length, 1);
    assert.equal((await clocked.request("/delschedule.json", key)).status, "ok");
    assert.deepEqual((await clocked.request("/listschedules.json")).schedules, []);
    assert.equal((await firedJobs(clocked, "nightly")).length, 1, "its job is still listed");
    const gone = await clocked.request("/delschedule.json", key);
    assert.equal(gone.message, "schedule 'nightly' not found in project 'shop'");
  });
});

Deno.test("a restart fires nothing twice; runs missed while down run once at start, or not with missed=skip", async () => {
  await withTempDir(async (dir) => {
    const serveDir = join(dir, "serve");
    const first = await openClocked(serveDir, BEFORE_THREE);
    try {
      await first.request("/addschedule.json", NIGHTLY);
      await first.request("/addschedule.json", [
        ...NIGHTLY.filter(([name]) => name !== "schedule"),
        ["schedule", "skipper"],
        ["missed", "skip"],
      ]);
      first.at(BEFORE_THREE + 100);
      await first.service.runner.whenFinished("nightly-20261204T030000Z");
    } finally {
      await first.service.close();
    }
    // The same moment again: nothing is fired twice.
    const second = await openClocked(serveDir, BEFORE_THREE + 200);
    try {
      second.at(BEFORE_THREE + 300);
      assert.equal((await firedJobs(second, "nightly")).length, 1);
      assert.equal((await firedJobs(second, "skipper")).length, 1);
    } finally {
      await second.service.close();
    }
    // Down for three nights: nightly runs once, for the first it missed; skipper not at all, and says why.
    const third = await openClocked(serveDir, BEFORE_THREE + 3 * DAY + 1000);
    try {
      assert.deepEqual((await firedJobs(third, "nightly")).map((job) => job.id).sort(), [
        "nightly-20261204T030000Z",
        "nightly-20261205T030000Z",
      ]);
      assert.equal((await firedJobs(third, "skipper")).length, 1);
      const { schedules } = await third.request("/listschedules.json") as { schedules: Record<string, unknown>[] };
      const skipper = schedules.find((s) => s.id === "skipper")!;
      assert.equal(skipper.last_note, "the run due at 2026-12-05T03:00:00.000Z was missed while the service was down");
      assert.equal(skipper.next_run, "2026-12-08T03:00:00.000Z");
      assert.ok(
        third.log.lines.some((line) => /fired job nightly-20261205T030000Z.*missed while the service/.test(line)),
      );
    } finally {
      await third.service.close();
    }
  });
});
