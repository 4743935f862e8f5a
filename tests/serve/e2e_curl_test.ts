/** The guide's curl lines, run with the real curl against a running `netweir serve`. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { withTempDir } from "./_setup.ts";
import { curl, jsonLines, type ServeProcess, startServe, stopQuietly } from "./_e2e_service.ts";

/** Runs curl and parses its answer as JSON. */
async function curlJson(args: string[]): Promise<Record<string, unknown>> {
  const result = await curl(args);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout);
}

Deno.test("the guide's curl lines schedule, list, read stats, items and logs of, and cancel jobs", async () => {
  const site = await startFixtureSite({ books: 20 });
  let service: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      service = await startServe(join(dir, "serve"));
      const base = service.url.replace(/\/$/, "");

      const scheduled = await curlJson([
        `${base}/schedule.json`,
        ...["-d", "project=shop", "-d", "spider=books"],
        ...["-d", "setting=max_items=5", "-d", "setting=concurrency=8"],
        ...["-d", "category=fiction", "-d", `site=${site.url}`],
      ]);
      assert.equal(scheduled.status, "ok", JSON.stringify(scheduled));
      assert.equal(typeof scheduled.node_name, "string");
      const jobid = String(scheduled.jobid);
      assert.match(jobid, /^[0-9a-f]{32}$/);

      await service.waitForJob(jobid, "finished");
      const listed = await curlJson([`${base}/listjobs.json?project=shop`]);
      assert.equal(listed.status, "ok");
      const [job] = (listed.finished as Record<string, unknown>[]).filter((one) => one.id === jobid);
      assert.equal(job.outcome, "finished");
      assert.equal(job.spider, "books");
      assert.equal(job.log_url, `/logs/shop/books/${jobid}.log`);
      assert.equal(job.items_url, `/items/shop/books/${jobid}.jl`);

      const stats = await curlJson([`${base}/jobstats.json?job=${jobid}`]);
      assert.equal(stats.status, "ok");
      const numbers = stats.stats as Record<string, unknown>;
      assert.equal(numbers.finish_reason, "max_items", "setting=max_items=5 reached the crawl");

      const items = await curl([`${base}/items/shop/books/${jobid}.jl`]);
      assert.equal(items.code, 0, items.stderr);
      const books = jsonLines(items.stdout);
      assert.equal(books.length, numbers.items, "the items file holds what the stats count");
      assert.ok(books.length >= 5 && books.length < 20, `max_items=5 stopped the crawl early: ${books.length}`);
      for (const book of books) assert.equal(book.category, "fiction", "-d category=fiction became self.category");
      const jsonl = await curl([`${base}/items/shop/books/${jobid}.jsonl`]);
      assert.equal(jsonl.stdout, items.stdout, "the same file is there as .jsonl");

      const log = await curl([`${base}/logs/shop/books/${jobid}.log`]);
      assert.equal(log.code, 0, log.stderr);
      assert.match(log.stdout, /crawl finished \{/);

      // A second job that only ends when cancelled: its gate file is never made.
      const second = await curlJson([
        `${base}/schedule.json`,
        ...["-d", "project=shop", "-d", "spider=books", "-d", `site=${site.url}`, "-d", `gate=${join(dir, "never")}`],
      ]);
      const running = String(second.jobid);
      await service.waitForJob(running, "running");
      const cancelled = await curlJson([`${base}/cancel.json`, "-d", "project=shop", "-d", `job=${running}`]);
      assert.deepEqual({ status: cancelled.status, prevstate: cancelled.prevstate }, {
        status: "ok",
        prevstate: "running",
      });
      const ended = await service.waitForJob(running, "finished");
      assert.equal(ended.outcome, "cancelled");
    });
  } finally {
    await stopQuietly(service);
    await site.close();
  }
});
