/** What a restart of `netweir serve` keeps: after kill -9 and after Ctrl-C, with jobs finished, running and waiting. */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { JobStore } from "../../src/serve/job_store.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { sendSignal } from "../helpers/signal.ts";
import { exists, processGone } from "./_job_helpers.ts";
import { withTempDir } from "./_setup.ts";
import { jsonLines, poll, type ServeProcess, startServe, stopQuietly, withRestarts } from "./_e2e_service.ts";

const BOOKS = 8;

Deno.test("after kill -9 and a restart the running job is lost, finished ones keep logs and items, waiting ones start", async () => {
  await withRestarts(BOOKS, async ({ site, gate, start, orphan: keepOrphan }) => {
    const first = await start(["--max-jobs", "1"]);
    const books = { project: "shop", spider: "books", site: site.url };
    await first.post("schedule.json", { ...books, jobid: "done" });
    const done = await first.waitForJob("done", "finished");
    assert.equal(done.outcome, "finished");
    await first.post("schedule.json", { ...books, jobid: "cut", gate });
    await first.post("schedule.json", { ...books, jobid: "later" });
    const cut = await first.waitForJob("cut", "running");
    const orphan = cut.pid!;
    keepOrphan(orphan);
    await poll("items of the running job", async () => {
      return jsonLines((await first.text(cut.items_url)).body).length === BOOKS || undefined;
    });
    assert.deepEqual((await first.jobs()).pending.map((job) => job.id), ["later"]);

    await first.process.kill("SIGKILL");
    const killed = await first.process.wait();
    assert.equal(killed.signal, "SIGKILL");
    assert.equal(await processGone(orphan), false, "a job is not told its service died: it runs on unwatched");

    const second = await start(["--max-jobs", "1"]);
    await second.process.waitFor(/job cut \(shop\/books\) was running when the service stopped: lost/);
    const said = second.process.output().stderr + second.process.output().stdout;
    assert.equal(said.match(/was running when the service/g)?.length, 1, "said once");
    const lost = await second.waitForJob("cut", "finished");
    assert.equal(lost.outcome, "lost");
    const kept = await second.waitForJob("done", "finished");
    assert.equal(kept.outcome, "finished");
    assert.equal(jsonLines((await second.text(kept.items_url)).body).length, BOOKS, "its items are still served");
    assert.match((await second.text(kept.log_url)).body, /crawl finished \{/, "and so is its log");
    const later = await second.waitForJob("later", "finished");
    assert.equal(later.outcome, "finished", "the waiting job started after the restart and ran");
    assert.equal(jsonLines((await second.text(later.items_url)).body).length, BOOKS);

    // The unwatched crawl carries on to its end; it stays lost even though it finishes.
    await writeFile(gate, "");
    await poll("the lost job's crawl to end by itself", async () => (await processGone(orphan)) || undefined);
    assert.equal((await second.waitForJob("cut", "finished")).outcome, "lost");
  });
});

Deno.test("Ctrl-C stops the service with status 0, its running job cancelled cleanly and its waiting job kept for the next start", async () => {
  const site = await startFixtureSite({ books: BOOKS });
  let service: ServeProcess | undefined;
  let restarted: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      const serveDir = join(dir, "serve");
      service = await startServe(serveDir, ["--max-jobs", "1"]);
      const books = { project: "shop", spider: "books", site: site.url };
      await service.post("schedule.json", { ...books, jobid: "running", gate: join(dir, "never") });
      await service.post("schedule.json", { ...books, jobid: "waiting" });
      const running = await service.waitForJob("running", "running");
      await poll("items of the running job", async () => {
        return jsonLines((await service!.text(running.items_url)).body).length === BOOKS || undefined;
      });

      const stopped = await service.stop();
      assert.equal(stopped.code, 0, stopped.stderr);
      const itemsFile = join(serveDir, "items", "shop", "books", "running.jl");
      const items = await readFile(itemsFile, "utf8");
      assert.ok(items.endsWith("\n"), "the items file ends with a whole line");
      assert.equal(jsonLines(items).length, BOOKS, "every line is whole JSON");
      const store = new JobStore(join(serveDir, "jobs.db"));
      try {
        assert.equal(store.get("running")?.outcome, "cancelled");
        assert.equal(store.get("waiting")?.state, "pending", "the waiting job is still in the queue");
      } finally {
        store.close();
      }
      const waitingLog = join(serveDir, "logs", "shop", "books", "waiting.log");
      assert.equal(await exists(waitingLog), false, "it never started");

      restarted = await startServe(serveDir, ["--max-jobs", "1"]);
      const later = await restarted.waitForJob("waiting", "finished");
      assert.equal(later.outcome, "finished");
      assert.equal(jsonLines((await restarted.text(later.items_url)).body).length, BOOKS);
      const cancelled = await restarted.waitForJob("running", "finished");
      assert.equal(cancelled.outcome, "cancelled", "a job stopped by Ctrl-C is cancelled, not lost");
    });
  } finally {
    await stopQuietly(restarted);
    await stopQuietly(service);
    await site.close();
  }
});

Deno.test("a service manager's stop (SIGTERM) waits for a running job, and a second signal kills it at once", async () => {
  const site = await startFixtureSite({ books: 1 });
  let service: ServeProcess | undefined;
  let restarted: ServeProcess | undefined;
  const pids: number[] = [];
  try {
    await withTempDir(async (dir) => {
      const serveDir = join(dir, "serve");
      service = await startServe(serveDir);
      await service.post("schedule.json", { project: "shop", spider: "stubborn", site: site.url, jobid: "stuck" });
      const job = await service.waitForJob("stuck", "running");
      const logFile = join(serveDir, "logs", "shop", "stubborn", "stuck.log");
      const started = await poll("the stubborn spider's pids", async () => {
        return /crawl pid=(\d+) sleep pid=(\d+)/.exec(await readFile(logFile, "utf8")) ?? undefined;
      });
      pids.push(Number(started[1]), Number(started[2]));
      assert.equal(pids[0], job.pid);

      await service.process.kill("SIGTERM");
      await poll("the job to be asked to stop", async () => {
        return /stubborn: ignoring SIGINT/.test(await readFile(logFile, "utf8")) || undefined;
      });
      await service.process.waitFor(/SIGTERM: stopping; running jobs are cancelled/);
      assert.equal(await processGone(service.process.pid), false, "the service waits for its running job");

      await service.process.kill("SIGTERM");
      const stopped = await service.process.wait();
      service = undefined;
      assert.equal(stopped.code, 0, stopped.stderr);
      assert.match(stopped.stderr + stopped.stdout, /SIGTERM: killing running jobs/);
      for (const pid of pids) assert.ok(await processGone(pid), `process ${pid} is gone`);
      assert.match(await readFile(logFile, "utf8"), /cancelled again: killing the crawl and every process it started/);

      restarted = await startServe(serveDir);
      const ended = await restarted.waitForJob("stuck", "finished");
      assert.equal(ended.outcome, "cancelled", "stopped with the service, not lost");
    });
  } finally {
    await stopQuietly(restarted);
    await stopQuietly(service);
    await site.close();
    for (const pid of pids) {
      if (!(await processGone(pid))) await sendSignal(pid, "SIGKILL").catch(() => {});
    }
  }
});
