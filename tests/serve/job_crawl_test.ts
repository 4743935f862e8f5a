/** The job service running the real `netweir crawl` (cli.ts in a new process) against the fixture site. */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runtime } from "../../src/runtime/mod.ts";
import { openJobService } from "../../src/serve/job_service.ts";
import type { NewJob } from "../../src/serve/types.ts";
import { CLI_PATH } from "../helpers/cli.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { memoryLog, waitForText, withTempDir } from "./_job_helpers.ts";

const SPIDER_FILE = fileURLToPath(new URL("../cli/fixtures/shop_spider.ts", import.meta.url));

function shopJob(id: string, args: string[]): NewJob {
  return {
    id,
    project: "shop",
    spider: "Shop",
    file: SPIDER_FILE,
    cwd: dirname(SPIDER_FILE),
    priority: 0,
    settings: ["min_delay=0", "stats_interval=1"],
    args,
  };
}

function jsonLines(text: string): unknown[] {
  return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
}

Deno.test("a job runs netweir crawl on its spider file and keeps its items, stats and log", async () => {
  const site = await startFixtureSite({ books: 12 });
  try {
    await withTempDir(async (dir) => {
      const service = await openJobService({
        dir: join(dir, "serve"),
        maxJobs: 1,
        cliCommand: runtime.selfCommand(CLI_PATH),
        log: memoryLog(),
      });
      try {
        const job = service.runner.schedule(shopJob("books", [`site=${site.url}shop/`]));
        const ended = await service.runner.whenFinished(job.id);
        const log = await readFile(service.paths.logFile(job), "utf8");
        assert.equal(ended?.outcome, "finished", log);
        assert.match(log, /crawl finished \{/);
        const items = jsonLines(await readFile(service.paths.itemsFile(job), "utf8"));
        assert.equal(items.length, 12);
        const stats = JSON.parse(await readFile(service.paths.statsFile(job), "utf8"));
        assert.equal(stats.finish_reason, "finished");
        assert.equal(stats.items, 12);
      } finally {
        await service.close();
      }
    });
  } finally {
    await site.close();
  }
});

Deno.test("a cancelled crawl stops the way Ctrl-C stops it: items closed off, stats saying shutdown", async () => {
  const site = await startFixtureSite({ books: 5 });
  try {
    await withTempDir(async (dir) => {
      const service = await openJobService({
        dir: join(dir, "serve"),
        maxJobs: 1,
        cliCommand: runtime.selfCommand(CLI_PATH),
        log: memoryLog(),
      });
      try {
        // slow=1 adds a request to /hang, which never answers: the crawl runs until it is stopped.
        const job = service.runner.schedule(shopJob("slow", [`site=${site.url}shop/`, "slow=1"]));
        await waitForText(service.paths.statsFile(job), /"items": 5/);
        assert.equal(service.runner.cancel("shop", "slow"), "running");
        const ended = await service.runner.whenFinished(job.id);
        const log = await readFile(service.paths.logFile(job), "utf8");
        assert.equal(ended?.outcome, "cancelled", log);
        assert.doesNotMatch(log, /killing the crawl/, "it stopped by itself, within the grace period");
        assert.equal(jsonLines(await readFile(service.paths.itemsFile(job), "utf8")).length, 5);
        const stats = JSON.parse(await readFile(service.paths.statsFile(job), "utf8"));
        assert.equal(stats.finish_reason, "shutdown");
      } finally {
        await service.close();
      }
    });
  } finally {
    await site.close();
  }
});
