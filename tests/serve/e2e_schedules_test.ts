/**
 * Periodic schedules in a real `netweir serve` process, in real time: a schedule firing a crawl of the fixture site,
 * --schedule on the command line, and exactly-once across a SIGKILL of the service at its due times.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { firedJobId } from "../../src/serve/scheduler.ts";
import { runCli } from "../helpers/cli.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { sleep } from "../helpers/wait.ts";
import { withTempDir } from "./_setup.ts";
import { jsonLines, type ListedJob, poll, type ServeProcess, startServe, stopQuietly } from "./_e2e_service.ts";

/** The jobs of one schedule, in every state. */
async function jobsOf(service: ServeProcess, schedule: string): Promise<ListedJob[]> {
  const lists = await service.jobs();
  return [...lists.pending, ...lists.running, ...lists.finished]
    .filter((job) => (job as unknown as { schedule?: string }).schedule === schedule);
}

Deno.test("a schedule fires in real time: its job crawls the site, links back to it, and its items are served", async () => {
  const site = await startFixtureSite({ books: 4 });
  let service: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      service = await startServe(join(dir, "serve"), ["--max-jobs", "1"]);
      const added = await service.post("addschedule.json", {
        project: "shop",
        spider: "books",
        cron: "* * * * * *",
        timezone: "UTC",
        schedule: "often",
        site: site.url,
      });
      assert.equal(added.status, "ok", JSON.stringify(added));
      const finished = await poll("a finished job of the schedule", async () => {
        const done = (await jobsOf(service!, "often")).find((job) => job.outcome !== null);
        return done;
      });
      assert.match(finished.id, /^often-\d{8}T\d{6}Z$/);
      assert.equal(finished.outcome, "finished");
      assert.equal(jsonLines((await service.text(finished.items_url)).body).length, 4);
      await service.process.waitFor(new RegExp(`schedule often fired job ${finished.id}: shop/books`));
      assert.equal((await service.post("delschedule.json", { project: "shop", schedule: "often" })).status, "ok");
    });
  } finally {
    await stopQuietly(service);
    await site.close();
  }
});

Deno.test("--schedule adds a schedule kept across restarts, removed once not given; a bad one stops the start with status 2", async () => {
  await withTempDir(async (dir) => {
    const serveDir = join(dir, "serve");
    const bad = await runCli([
      "serve",
      "--port",
      "0",
      "--dir",
      serveDir,
      "--project",
      "shop=x",
      "--schedule",
      "shop-books",
    ]);
    assert.equal(bad.code, 2);
    const badCron = await runCli([
      "serve",
      "--project",
      `shop=${join(import.meta.dirname!, "fixtures", "e2e")}`,
      "--port",
      "0",
      "--dir",
      serveDir,
      "--schedule",
      "shop/books@0 25 * * *",
    ]);
    assert.equal(badCron.code, 2, badCron.stderr);
    assert.match(badCron.stderr, /--schedule "shop\/books@0 25 \* \* \*": cron expression "0 25 \* \* \*" is invalid/);
    assert.doesNotMatch(badCron.stderr, /\n\s+at /, "no stack trace");

    let service: ServeProcess | undefined;
    try {
      service = await startServe(serveDir, ["--schedule", "shop/books@0 3 * * *"]);
      const [listed] = (await service.get("listschedules.json")).schedules as Record<string, unknown>[];
      assert.equal(listed.origin, "cli");
      assert.equal(listed.cron, "0 3 * * *");
      assert.match(String(listed.id), /^shop-books-[0-9a-f]{8}$/);
      await stopQuietly(service);
      service = await startServe(serveDir, ["--schedule", "shop/books@0 3 * * *"]);
      const again = (await service.get("listschedules.json")).schedules as Record<string, unknown>[];
      assert.deepEqual(again, [listed], "the same schedule, with the same next due time");
      await stopQuietly(service);
      service = await startServe(serveDir);
      assert.deepEqual((await service.get("listschedules.json")).schedules, []);
    } finally {
      await stopQuietly(service);
    }
  });
});

Deno.test("killed with SIGKILL at its due times, a schedule fires each due time exactly once across the restarts", async () => {
  await withTempDir(async (dir) => {
    const serveDir = join(dir, "serve");
    // Its jobs crawl a closed port (the spider's default site), so they end at once and none outlives the test.
    let service: ServeProcess | undefined = await startServe(serveDir, ["--max-jobs", "4"]);
    const dueTimes: number[] = [];
    try {
      const added = await service.post("addschedule.json", {
        project: "shop",
        spider: "books",
        cron: "*/2 * * * * *",
        timezone: "UTC",
        schedule: "tick",
        overlap: "queue",
      });
      assert.equal(added.status, "ok", JSON.stringify(added));
      // The service looks once a second from its start, so these land before its look at one due time, after it
      // at another: the due time is fired before the kill or found missed at the restart.
      for (const offset of [0, 250, 500, 750]) {
        const next = Date.parse(
          String(
            (await service.get("listschedules.json") as { schedules: { next_run: string }[] })
              .schedules[0].next_run,
          ),
        );
        dueTimes.push(next);
        await sleep(Math.max(0, next + offset - Date.now()));
        await service.process.kill("SIGKILL");
        await service.process.wait();
        service = await startServe(serveDir, ["--max-jobs", "4"]);
      }
      const ids = (await poll("the last due time's job", async () => {
        const jobs = await jobsOf(service!, "tick");
        return jobs.some((job) => job.id === firedJobId("tick", dueTimes.at(-1)!)) ? jobs : undefined;
      })).map((job) => job.id);
      assert.equal(new Set(ids).size, ids.length, `no job twice: ${ids}`);
      for (const due of dueTimes) {
        assert.ok(ids.includes(firedJobId("tick", due)), `due time ${new Date(due).toISOString()} fired: ${ids}`);
      }
    } finally {
      await stopQuietly(service);
    }
  });
});
