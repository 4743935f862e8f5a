/** A job's life through a running `netweir serve`: scheduled, running, finished, or cancelled while it waits or runs. */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { sendSignal } from "../helpers/signal.ts";
import { processGone } from "./_job_helpers.ts";
import { withTempDir } from "./_setup.ts";
import { jsonLines, poll, type ServeProcess, startServe, stopQuietly } from "./_e2e_service.ts";

const BOOKS = 12;

Deno.test("a scheduled job runs, its items and log can be fetched while it runs, and it finishes", async () => {
  const site = await startFixtureSite({ books: BOOKS });
  let service: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      service = await startServe(join(dir, "serve"));
      const gate = join(dir, "gate");
      const scheduled = await service.post("schedule.json", {
        project: "shop",
        spider: "books",
        setting: "stats_interval=0.2",
        site: site.url,
        gate,
      });
      assert.equal(scheduled.status, "ok", JSON.stringify(scheduled));
      const id = String(scheduled.jobid);
      const job = await service.waitForJob(id, "running");
      assert.equal(typeof job.pid, "number");

      // The gate is closed, so the job is still running while every book is already in its items file.
      const items = await poll("the items so far", async () => {
        const { status, body } = await service!.text(job.items_url);
        return status === 200 && jsonLines(body).length === BOOKS ? jsonLines(body) : undefined;
      });
      assert.equal(new Set(items.map((item) => item.url)).size, BOOKS);
      assert.ok((await service.jobs()).running.some((one) => one.id === id), "it is still running");
      const log = await service.text(job.log_url);
      assert.equal(log.status, 200);
      assert.match(log.body, /\[netweir\] INFO: waiting for .*gate before finishing/, "the log so far");
      const stats = await poll("stats written while it runs", async () => {
        const answer = await service!.get("jobstats.json", { job: id });
        const numbers = answer.stats as Record<string, unknown> | null;
        return numbers && numbers.items === BOOKS ? answer : undefined;
      });
      assert.equal(stats.state, "running");
      assert.equal((stats.stats as Record<string, unknown>).finish_reason, null);

      await writeFile(gate, "");
      const ended = await service.waitForJob(id, "finished");
      assert.equal(ended.outcome, "finished");
      assert.equal(jsonLines((await service.text(ended.items_url)).body).length, BOOKS);
      const final = await service.get("jobstats.json", { job: id });
      assert.equal((final.stats as Record<string, unknown>).finish_reason, "finished");
    });
  } finally {
    await stopQuietly(service);
    await site.close();
  }
});

Deno.test("with --max-jobs 1 a second job waits; cancelled, a waiting job leaves the queue and a running one stops cleanly", async () => {
  const site = await startFixtureSite({ books: BOOKS });
  let service: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      service = await startServe(join(dir, "serve"), ["--max-jobs", "1"]);
      const never = join(dir, "never");
      const params = { project: "shop", spider: "books", site: site.url, gate: never };
      const first = String((await service.post("schedule.json", { ...params, jobid: "First" })).jobid);
      const second = String((await service.post("schedule.json", { ...params, jobid: "second" })).jobid);
      assert.deepEqual([first, second], ["First", "second"], "job ids keep their spelling");
      const running = await service.waitForJob("first", "running");
      const listed = await service.jobs();
      assert.deepEqual(listed.pending.map((job) => job.id), ["second"]);

      const waiting = await service.post("cancel.json", { project: "shop", job: "Second" });
      assert.equal(waiting.prevstate, "pending");
      // Forgotten by listjobs.json and status.json, as scrapyd forgets it; jobstats.json still says what became of it.
      const afterCancel = await service.jobs();
      assert.deepEqual([...afterCancel.pending, ...afterCancel.finished].map((job) => job.id), []);
      assert.equal((await service.get("status.json", { job: "second" })).currstate, null);
      assert.equal((await service.get("jobstats.json", { job: "second" })).outcome, "cancelled");
      const noLog = await service.text("/logs/shop/books/second.log");
      assert.equal(noLog.status, 404, "it has no log");
      assert.deepEqual(Object.keys(JSON.parse(noLog.body)).sort(), ["message", "node_name", "status"]);
      assert.deepEqual((await service.jobs()).running.map((job) => job.id), ["First"]);

      await poll("items of the running job", async () => {
        const { body } = await service!.text(running.items_url);
        return jsonLines(body).length === BOOKS || undefined;
      });
      const cancelled = await service.post("cancel.json", { project: "shop", job: "first" });
      assert.equal(cancelled.prevstate, "running");
      const ended = await service.waitForJob("first", "finished");
      assert.equal(ended.outcome, "cancelled");
      const items = await service.text(ended.items_url);
      assert.ok(items.body.endsWith("\n"), "the items file is closed off after its last line");
      assert.equal(jsonLines(items.body).length, BOOKS);
      const stats = await service.get("jobstats.json", { job: "first" });
      assert.equal((stats.stats as Record<string, unknown>).finish_reason, "shutdown", "stopped as Ctrl-C stops it");
      const log = await service.text(ended.log_url);
      assert.doesNotMatch(log.body, /killing the crawl/, "it stopped by itself, within the grace period");
      assert.equal((await service.jobs()).running.length, 0, "the cancelled waiting job did not start after all");
    });
  } finally {
    await stopQuietly(service);
    await site.close();
  }
});

Deno.test("a job that ignores SIGINT is killed with its children once the cancel grace period is over", async () => {
  const site = await startFixtureSite({ books: 1 });
  let service: ServeProcess | undefined;
  const pids: number[] = [];
  try {
    await withTempDir(async (dir) => {
      service = await startServe(join(dir, "serve"), ["--cancel-grace", "2"]);
      const scheduled = await service.post("schedule.json", { project: "shop", spider: "stubborn", site: site.url });
      const id = String(scheduled.jobid);
      const job = await service.waitForJob(id, "running");
      const started = await poll("the stubborn spider's pids", async () => {
        const { body } = await service!.text(job.log_url);
        return /crawl pid=(\d+) sleep pid=(\d+)/.exec(body) ?? undefined;
      });
      const [crawl, sleep] = [Number(started[1]), Number(started[2])];
      pids.push(crawl, sleep);
      assert.equal(crawl, job.pid);

      assert.equal((await service.post("cancel.json", { project: "shop", job: id })).prevstate, "running");
      const ended = await service.waitForJob(id, "finished");
      assert.equal(ended.outcome, "cancelled");
      assert.ok(await processGone(crawl), "the crawl was killed");
      assert.ok(await processGone(sleep), "and so was the process it started");
      const log = (await service.text(job.log_url)).body;
      assert.match(log, /stubborn: ignoring SIGINT/, "it was asked to stop first");
      assert.match(log, /still running 2 s after SIGINT: killing the crawl and every process it started/);
    });
  } finally {
    await stopQuietly(service);
    await site.close();
    // Should the kill not have happened, nothing of the job may outlive the test.
    for (const pid of pids) {
      if (!(await processGone(pid))) await sendSignal(pid, "SIGKILL").catch(() => {});
    }
  }
});

Deno.test("cancelled a second time, a job that ignores SIGINT is killed at once with its children", async () => {
  const site = await startFixtureSite({ books: 1 });
  let service: ServeProcess | undefined;
  const pids: number[] = [];
  try {
    await withTempDir(async (dir) => {
      // The default grace period of 30 s: only the second cancel can end the job soon.
      service = await startServe(join(dir, "serve"));
      const id = String(
        (await service.post("schedule.json", { project: "shop", spider: "stubborn", site: site.url })).jobid,
      );
      const job = await service.waitForJob(id, "running");
      const started = await poll("the stubborn spider's pids", async () => {
        return /crawl pid=(\d+) sleep pid=(\d+)/.exec((await service!.text(job.log_url)).body) ?? undefined;
      });
      pids.push(Number(started[1]), Number(started[2]));

      assert.equal((await service.post("cancel.json", { project: "shop", job: id })).prevstate, "running");
      await poll("the spider to ignore SIGINT", async () => {
        return /stubborn: ignoring SIGINT/.test((await service!.text(job.log_url)).body) || undefined;
      });
      assert.equal((await service.post("cancel.json", { project: "shop", job: id })).prevstate, "running");
      const ended = await service.waitForJob(id, "finished");
      assert.equal(ended.outcome, "cancelled");
      for (const pid of pids) assert.ok(await processGone(pid), `process ${pid} is gone`);
      const log = (await service.text(job.log_url)).body;
      assert.match(log, /cancelled again: killing the crawl and every process it started/);
      assert.doesNotMatch(log, /still running 30 s after SIGINT/);
    });
  } finally {
    await stopQuietly(service);
    await site.close();
    for (const pid of pids) {
      if (!(await processGone(pid))) await sendSignal(pid, "SIGKILL").catch(() => {});
    }
  }
});

Deno.test("a cancelled job with a checkpoint, scheduled again with the same checkpoint, carries on where it stopped", async () => {
  const site = await startFixtureSite({ books: BOOKS });
  let service: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      service = await startServe(join(dir, "serve"));
      const bookHits = () => site.requests.filter((request) => /\/catalogue\/[^/]+_\d+\//.test(request.path)).length;
      const params = { project: "shop", spider: "books", site: site.url, setting: "checkpoint=books-state" };
      const first = String((await service.post("schedule.json", { ...params, gate: join(dir, "never") })).jobid);
      const running = await service.waitForJob(first, "running");
      await poll("every book of the first job", async () => {
        const { body } = await service!.text(running.items_url);
        return jsonLines(body).length === BOOKS || undefined;
      });
      await service.post("cancel.json", { project: "shop", job: first });
      assert.equal((await service.waitForJob(first, "finished")).outcome, "cancelled");
      const fetched = bookHits();

      const open = join(dir, "open");
      await writeFile(open, "");
      const second = String((await service.post("schedule.json", { ...params, gate: open })).jobid);
      const ended = await service.waitForJob(second, "finished");
      assert.equal(ended.outcome, "finished");
      assert.equal(jsonLines((await service.text(ended.items_url)).body).length, 0, "nothing scraped twice");
      assert.equal(bookHits(), fetched, "no book fetched again");
      const stats = (await service.get("jobstats.json", { job: second })).stats as Record<string, unknown>;
      assert.equal(stats.items, BOOKS, "the stats carried on from the cancelled job");
    });
  } finally {
    await stopQuietly(service);
    await site.close();
  }
});
