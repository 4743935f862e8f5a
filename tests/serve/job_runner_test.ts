import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { JobStore } from "../../src/serve/job_store.ts";
import { type OpenedJobService, openJobService, type OpenJobServiceOptions } from "../../src/serve/job_service.ts";
import { servePaths } from "../../src/serve/paths.ts";
import { JobExistsError } from "../../src/serve/types.ts";
import {
  exists,
  FAKE_CRAWL,
  fakeJob,
  memoryLog,
  processGone,
  waitForText,
  waitUntil,
  withTempDir,
} from "./_job_helpers.ts";

type ServiceOptions = Partial<Omit<OpenJobServiceOptions, "dir">>;

/** Runs `body` with a job service on a fresh --dir (jobs run in DIR/project), closed afterwards. */
async function withService(
  options: ServiceOptions,
  body: (service: OpenedJobService, dir: string, project: string) => Promise<void>,
): Promise<void> {
  await withTempDir(async (dir) => {
    const serveDir = join(dir, "serve");
    const service = await openJobService({
      dir: serveDir,
      maxJobs: 1,
      cliCommand: FAKE_CRAWL,
      log: memoryLog(),
      ...options,
    });
    try {
      await body(service, serveDir, dir);
    } finally {
      await service.close();
    }
  });
}

const key = (id: string) => ({ project: "shop", spider: "fake", id });

Deno.test("a job runs the crawl command in its project's directory, with its output in its log, and ends finished", async () => {
  await withService({}, async ({ runner, paths }, _dir, project) => {
    const scheduled = runner.schedule({
      ...fakeJob("first", project, ["items=2", "category=fiction"]),
      settings: ["max_items=5"],
    });
    assert.equal(scheduled.state, "running");
    const job = await runner.whenFinished("first");
    assert.equal(job?.outcome, "finished");
    assert.ok(job.pid! > 0 && job.startedAt !== null && job.endedAt! >= job.startedAt);
    const log = await readFile(paths.logFile(key("first")), "utf8");
    const argv = JSON.parse(log.match(/^argv (.*)$/m)![1]);
    assert.deepEqual(argv, [
      "crawl",
      join(project, "fake.ts"),
      "--spider",
      "fake",
      "-s",
      "log_format=scrapy",
      "-s",
      "max_items=5",
      "-a",
      "items=2",
      "-a",
      "category=fiction",
      "-o",
      paths.itemsFile(key("first")),
      "--stats-file",
      paths.statsFile(key("first")),
    ]);
    assert.match(log, new RegExp(`^cwd ${project}$`, "m"));
    assert.match(log, /^a line on stderr$/m);
    assert.equal((await readFile(paths.itemsFile(key("first")), "utf8")).trim().split("\n").length, 2);
    assert.equal(JSON.parse(await readFile(paths.statsFile(key("first")), "utf8")).finish_reason, "finished");
  });
});

Deno.test("a crawl that exits with another status is failed, and one whose command cannot start is failed", async () => {
  await withService({}, async ({ runner }, _dir, project) => {
    runner.schedule(fakeJob("bad-exit", project, ["exit=3"]));
    assert.equal((await runner.whenFinished("bad-exit"))?.outcome, "failed");
  });
  await withService(
    { cliCommand: { command: "/nonexistent/netweir", args: [] } },
    async ({ runner, paths }, _dir, project) => {
      runner.schedule(fakeJob("no-command", project));
      assert.equal((await runner.whenFinished("no-command"))?.outcome, "failed");
      assert.match(await readFile(paths.logFile(key("no-command")), "utf8"), /could not start the crawl: .*ENOENT/);
    },
  );
});

Deno.test("waiting jobs start one at a time by priority, then in the order they came", async () => {
  await withService({ maxJobs: 1 }, async ({ runner }, _dir, project) => {
    const gate = join(project, "gate");
    const record = join(project, "record");
    runner.schedule(fakeJob("blocker", project, [`wait_for=${gate}`, `record=${record}`]));
    runner.schedule(fakeJob("low", project, [`record=${record}`], 0));
    runner.schedule(fakeJob("high", project, [`record=${record}`], 5));
    runner.schedule(fakeJob("mid", project, [`record=${record}`], 1));
    runner.schedule(fakeJob("high-later", project, [`record=${record}`], 5));
    runner.schedule(fakeJob("below-zero", project, [`record=${record}`], -2));
    assert.deepEqual(runner.counts(), { pending: 5, running: 1, finished: 0 });
    await writeFile(gate, "");
    await runner.whenFinished("below-zero");
    const starts = (await readFile(record, "utf8")).match(/^start .*$/gm);
    assert.deepEqual(starts, [
      "start blocker",
      "start high",
      "start high-later",
      "start mid",
      "start low",
      "start below-zero",
    ]);
    assert.deepEqual(runner.list().map((job) => job.outcome), Array(6).fill("finished"));
  });
});

Deno.test("no more than max-jobs crawls run at once", async () => {
  await withService({ maxJobs: 2 }, async ({ runner, paths }, _dir, project) => {
    const gate = join(project, "gate");
    const record = join(project, "record");
    const ids = ["j1", "j2", "j3", "j4", "j5"];
    for (const id of ids) runner.schedule(fakeJob(id, project, [`wait_for=${gate}`, `record=${record}`]));
    await waitForText(paths.logFile(key("j1")), /ready/);
    await waitForText(paths.logFile(key("j2")), /ready/);
    assert.deepEqual(runner.counts(), { pending: 3, running: 2, finished: 0 });
    assert.deepEqual(runner.list().map((job) => job.state), ["running", "running", "pending", "pending", "pending"]);
    await writeFile(gate, "");
    for (const id of ids) assert.equal((await runner.whenFinished(id))?.outcome, "finished");
    let now = 0;
    let most = 0;
    for (const line of (await readFile(record, "utf8")).trim().split("\n")) {
      now += line.startsWith("start") ? 1 : -1;
      most = Math.max(most, now);
    }
    assert.equal(most, 2);
  });
});

Deno.test("cancelling a waiting job takes it out of the queue: it never runs and is listed as cancelled", async () => {
  await withService({ maxJobs: 1 }, async ({ runner, paths }, _dir, project) => {
    const gate = join(project, "gate");
    runner.schedule(fakeJob("blocker", project, [`wait_for=${gate}`]));
    runner.schedule(fakeJob("waiting", project));
    assert.equal(runner.cancel("news", "waiting"), undefined, "a job of another project");
    assert.equal(runner.cancel("shop", "no-such-job"), undefined);
    assert.equal(runner.cancel("SHOP", "WAITING"), "pending");
    const job = runner.get("waiting");
    assert.deepEqual([job?.state, job?.outcome, job?.startedAt], ["finished", "cancelled", null]);
    await writeFile(gate, "");
    assert.equal((await runner.whenFinished("blocker"))?.outcome, "finished");
    assert.equal(await exists(paths.logFile(key("waiting"))), false);
    assert.equal(runner.get("waiting")?.outcome, "cancelled");
    assert.equal(runner.cancel("shop", "waiting"), "finished");
  });
});

Deno.test("cancelling a running job stops it as Ctrl-C does: it closes off its stats and ends cancelled", async () => {
  await withService({}, async ({ runner, paths }, _dir, project) => {
    runner.schedule(fakeJob("long", project, [`wait_for=${join(project, "never")}`]));
    await waitForText(paths.logFile(key("long")), /ready/);
    assert.equal(runner.cancel("shop", "Long"), "running");
    const job = await runner.whenFinished("long");
    assert.equal(job?.outcome, "cancelled");
    assert.equal(JSON.parse(await readFile(paths.statsFile(key("long")), "utf8")).finish_reason, "shutdown");
    const log = await readFile(paths.logFile(key("long")), "utf8");
    assert.match(log, /\[netweir\.serve\] INFO: cancelled: stopping the crawl \(SIGINT\)[\s\S]*exiting 130/);
    assert.doesNotMatch(log, /killing/);
  });
});

Deno.test("a job that ignores SIGINT is killed, with the processes it started, once the grace period is over", async () => {
  await withService({ graceMs: 1000 }, async ({ runner, paths }, _dir, project) => {
    runner.schedule(fakeJob("stubborn", project, ["sigint=ignore", "child=1", `wait_for=${join(project, "never")}`]));
    const log = paths.logFile(key("stubborn"));
    const childPid = Number((await waitForText(log, /child ready pid=(\d+)/))[1]);
    await waitForText(log, /^ready/m);
    const pid = runner.get("stubborn")!.pid!;
    assert.equal(runner.cancel("shop", "stubborn"), "running");
    assert.equal((await runner.whenFinished("stubborn"))?.outcome, "cancelled");
    assert.match(
      await readFile(log, "utf8"),
      /^ignoring SIGINT$[\s\S]*still running 1 s after SIGINT: killing the crawl and every process it started/m,
    );
    assert.equal(await processGone(pid), true);
    await waitUntil(`child ${childPid} to be gone`, async () => await processGone(childPid) || undefined);
  });
});

Deno.test("a second cancel kills a job and its children at once", async () => {
  // The grace period outlasts the test's own time limit: only the second cancel can end this job in time.
  await withService({ graceMs: 10 * 60_000 }, async ({ runner, paths }, _dir, project) => {
    runner.schedule(fakeJob("stubborn", project, ["sigint=ignore", "child=1", `wait_for=${join(project, "never")}`]));
    const log = paths.logFile(key("stubborn"));
    const childPid = Number((await waitForText(log, /child ready pid=(\d+)/))[1]);
    await waitForText(log, /^ready/m);
    assert.equal(runner.cancel("shop", "stubborn"), "running");
    await waitForText(log, /^ignoring SIGINT$/m);
    assert.equal(runner.get("stubborn")?.state, "running");
    assert.equal(runner.cancel("shop", "stubborn"), "running");
    const job = await waitUntil("the job to end", () => runner.whenFinished("stubborn"), 30_000);
    assert.equal(job.outcome, "cancelled");
    assert.match(await readFile(log, "utf8"), /cancelled again: killing the crawl and every process it started/);
    await waitUntil(`child ${childPid} to be gone`, async () => await processGone(childPid) || undefined);
  });
});

Deno.test("shutdown cancels running jobs, waits for them, and leaves waiting jobs for the next start", async () => {
  await withTempDir(async (dir) => {
    const serveDir = join(dir, "serve");
    const options = { dir: serveDir, maxJobs: 1, cliCommand: FAKE_CRAWL, log: memoryLog() };
    const first = await openJobService(options);
    first.runner.schedule(fakeJob("running", dir, [`wait_for=${join(dir, "never")}`]));
    first.runner.schedule(fakeJob("waiting", dir));
    await waitForText(first.paths.logFile(key("running")), /ready/);
    const pid = first.runner.get("running")!.pid!;
    await first.close();
    assert.equal(await processGone(pid), true, "close() waited for the crawl to end");

    const store = new JobStore(servePaths(serveDir).jobsDb);
    assert.deepEqual(store.list().map((job) => [job.id, job.state, job.outcome]), [
      ["running", "finished", "cancelled"],
      ["waiting", "pending", null],
    ]);
    store.close();

    const second = await openJobService(options);
    try {
      assert.deepEqual(second.lost, []);
      assert.equal((await second.runner.whenFinished("waiting"))?.outcome, "finished");
    } finally {
      await second.close();
    }
  });
});

Deno.test("a job running when the service died is marked lost at the next start, and waiting jobs then run", async () => {
  await withTempDir(async (dir) => {
    const serveDir = join(dir, "serve");
    const paths = servePaths(serveDir);
    await openJobService({ dir: serveDir, maxJobs: 1, cliCommand: FAKE_CRAWL, log: memoryLog() })
      .then((service) => service.close());
    // What a service killed with -9 leaves: a job still marked running, one waiting.
    const crashed = new JobStore(paths.jobsDb);
    crashed.add(fakeJob("was-running", dir));
    crashed.markRunning("was-running", 2 ** 22 + 1);
    crashed.add(fakeJob("was-waiting", dir));
    crashed.close();

    const log = memoryLog();
    const service = await openJobService({ dir: serveDir, maxJobs: 1, cliCommand: FAKE_CRAWL, log });
    try {
      assert.deepEqual(service.lost.map((job) => job.id), ["was-running"]);
      const lost = service.runner.get("was-running");
      assert.deepEqual([lost?.state, lost?.outcome], ["finished", "lost"]);
      assert.ok(log.lines.some((line) => /^WARNING job was-running .*lost/.test(line)), log.lines.join("\n"));
      assert.equal((await service.runner.whenFinished("was-waiting"))?.outcome, "finished");
    } finally {
      await service.close();
    }
  });
});

Deno.test("past keep finished jobs the oldest is forgotten, and its log, items and stats files are deleted", async () => {
  await withService({ keep: 2 }, async ({ runner, paths }, _dir, project) => {
    const ids = ["old", "middle", "new"];
    for (const id of ids) runner.schedule(fakeJob(id, project, ["items=1"]));
    const files = (id: string) => [paths.logFile(key(id)), paths.itemsFile(key(id)), paths.statsFile(key(id))];
    await runner.whenFinished("new");
    assert.deepEqual(runner.list().map((job) => job.id), ["middle", "new"]);
    assert.equal(runner.get("old"), undefined);
    for (const file of files("old")) assert.equal(await exists(file), false, file);
    for (const file of [...files("middle"), ...files("new")]) assert.equal(await exists(file), true, file);
  });
});

Deno.test("job ids ignore case when scheduling, looking up and cancelling", async () => {
  await withService({}, async ({ runner }, _dir, project) => {
    runner.schedule(fakeJob("Job1", project, [`wait_for=${join(project, "never")}`]));
    assert.throws(() => runner.schedule(fakeJob("JOB1", project)), JobExistsError);
    assert.equal(runner.get("jOb1")?.id, "Job1");
    assert.equal(runner.cancel("shop", "JOB1"), "running");
    assert.equal((await runner.whenFinished("job1"))?.outcome, "cancelled");
  });
});

Deno.test("cancel with signal KILL kills a job and its children at once, without waiting for the grace period", async () => {
  await withService({ graceMs: 10 * 60_000 }, async ({ runner, paths }, _dir, project) => {
    runner.schedule(fakeJob("stubborn", project, ["sigint=ignore", "child=1", `wait_for=${join(project, "never")}`]));
    const log = paths.logFile(key("stubborn"));
    const childPid = Number((await waitForText(log, /child ready pid=(\d+)/))[1]);
    await waitForText(log, /^ready/m);
    assert.equal(runner.cancel("shop", "stubborn", "KILL"), "running");
    const job = await waitUntil("the job to end", () => runner.whenFinished("stubborn"), 30_000);
    assert.equal(job.outcome, "cancelled");
    const text = await readFile(log, "utf8");
    assert.match(text, /cancelled with signal KILL: killing the crawl and every process it started/);
    assert.doesNotMatch(text, /ignoring SIGINT/, "no SIGINT was sent first");
    await waitUntil(`child ${childPid} to be gone`, async () => await processGone(childPid) || undefined);
  });
});

Deno.test("cancel with signal TERM sends the crawl SIGTERM rather than SIGINT", async () => {
  await withService({}, async ({ runner, paths }, _dir, project) => {
    runner.schedule(fakeJob("termed", project, [`wait_for=${join(project, "never")}`]));
    await waitForText(paths.logFile(key("termed")), /^ready/m);
    assert.equal(runner.cancel("shop", "termed", "TERM"), "running");
    assert.equal((await runner.whenFinished("termed"))?.outcome, "cancelled");
    assert.equal(JSON.parse(await readFile(paths.statsFile(key("termed")), "utf8")).finish_reason, "sigterm");
    assert.match(await readFile(paths.logFile(key("termed")), "utf8"), /stopping the crawl \(SIGTERM\)/);
  });
});

Deno.test("a job's settings and arguments are not on its command line, and its log starts with them, secrets masked", async () => {
  await withService({}, async ({ runner, paths }, _dir, project) => {
    runner.schedule({
      ...fakeJob("secret", project, [`wait_for=${join(project, "never")}`, "token=tok-secret-2", "category=x"]),
      settings: ["http_auth=example.com=me:pw-secret-1", "proxies=http://u:proxy-secret-3@127.0.0.1:9"],
    });
    const log = paths.logFile(key("secret"));
    await waitForText(log, /^ready/m);
    const pid = runner.get("secret")!.pid!;
    const commandLine = (await readFile(`/proc/${pid}/cmdline`, "utf8")).split("\0");
    assert.ok(commandLine.includes("_serve_job"), commandLine.join(" "));
    for (const secret of ["pw-secret-1", "tok-secret-2", "proxy-secret-3", "http_auth", "category"]) {
      assert.ok(!commandLine.join(" ").includes(secret), `${secret} is not on the command line`);
    }
    assert.equal(await exists(paths.jobSpecFile(key("secret"))), false, "the spec file is deleted once read");
    const text = await readFile(log, "utf8");
    const argv = JSON.parse(text.match(/^argv (.*)$/m)![1]);
    assert.ok(argv.includes("http_auth=example.com=me:pw-secret-1"), "the crawl still got its settings");
    const first = text.split("\n")[0];
    // In Scrapy's format, as the crawl's own lines: "2026-12-01 10:21:07 [netweir.serve] INFO: ...".
    assert.match(
      first,
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[netweir\.serve\] INFO: job secret of project shop: spider fake from .*fake\.ts, settings /,
    );
    assert.match(first, /"http_auth":"example\.com=me:\*\*\*"/);
    assert.match(first, /"proxies":"http:\/\/u:\*\*\*@127\.0\.0\.1:9"/);
    assert.match(first, /"token":"\*\*\*"/);
    assert.match(first, /"category":"x"/);
    assert.doesNotMatch(first, /secret-\d/);
    assert.equal(runner.cancel("shop", "secret"), "running");
    await runner.whenFinished("secret");
  });
});

Deno.test("a child that left the job's process group with setsid is killed too, when the job is cancelled or killed", async () => {
  await withService({ graceMs: 10 * 60_000 }, async ({ runner, paths }, _dir, project) => {
    for (const [id, signal] of [["calm", "INT"], ["hard", "KILL"]] as const) {
      runner.schedule(fakeJob(id, project, ["setsid=1", `wait_for=${join(project, "never")}`]));
      const log = paths.logFile(key(id));
      const strayPid = Number((await waitForText(log, /child ready pid=(\d+)/))[1]);
      await waitForText(log, /^ready/m);
      const stat = await readFile(`/proc/${strayPid}/stat`, "utf8");
      const [session, jobPid] = [Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[3]), runner.get(id)!.pid];
      assert.notEqual(session, jobPid, "the child is in a session of its own");
      assert.equal(runner.cancel("shop", id, signal), "running");
      assert.equal((await runner.whenFinished(id))?.outcome, "cancelled");
      await waitUntil(`stray ${strayPid} to be gone`, async () => await processGone(strayPid) || undefined, 10_000);
    }
  });
});
