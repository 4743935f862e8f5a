/** A job's warc and har in folders of the project's data directory: made as the job starts, not a failed job. */
import assert from "node:assert/strict";
import { mkdir, readdir, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { type ServeProcess, startServe, stopQuietly } from "./_e2e_service.ts";
import { withTempDir } from "./_setup.ts";

Deno.test("warc and har in subfolders of the data directory are written there, and the job finishes", async () => {
  const site = await startFixtureSite({ books: 3 });
  let service: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      const serveDir = join(dir, "serve");
      service = await startServe(serveDir);
      const scheduled = await service.post("schedule.json", {
        project: "shop",
        spider: "books",
        jobid: "archived",
        site: site.url,
        setting: ["warc=archives/2026/books.warc", "har=runs/books.har"],
      });
      assert.equal(scheduled.status, "ok", JSON.stringify(scheduled));
      const job = await service.waitForJob("archived", "finished");
      const log = (await service.text(job.log_url)).body;
      assert.equal(job.outcome, "finished", log);
      const data = join(serveDir, "data", "shop");
      for (const file of [join(data, "archives", "2026", "books.warc"), join(data, "runs", "books.har")]) {
        assert.ok((await stat(file)).size > 0, `${file} written`);
      }
    });
  } finally {
    await stopQuietly(service);
    await site.close();
  }
});

Deno.test("a symlink planted in the data directory after scheduling is refused as the job starts, and nothing is written outside", async () => {
  const site = await startFixtureSite({ books: 3 });
  let service: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      const serveDir = join(dir, "serve");
      const outside = join(dir, "outside");
      await mkdir(outside);
      service = await startServe(serveDir, ["--max-jobs", "1"]);
      const books = { project: "shop", spider: "books", site: site.url };
      const gate = join(dir, "gate");
      await service.post("schedule.json", { ...books, jobid: "first", gate });
      await service.waitForJob("first", "running");
      // Checked at scheduling: nothing is there yet, so nothing leads out.
      const scheduled = await service.post("schedule.json", {
        ...books,
        jobid: "planted",
        setting: ["checkpoint=books", "warc=runs/books.warc"],
      });
      assert.equal(scheduled.status, "ok", JSON.stringify(scheduled));
      // While it waits, something (another job's spider, say) plants links to outside the data directory.
      const data = join(serveDir, "data", "shop");
      await mkdir(data, { recursive: true });
      await symlink(outside, join(data, "books"));
      await symlink(outside, join(data, "runs"));
      await writeFile(gate, "");
      assert.equal((await service.waitForJob("first", "finished")).outcome, "finished");
      const job = await service.waitForJob("planted", "finished");
      const log = (await service.text(job.log_url)).body;
      assert.equal(job.outcome, "failed", log);
      assert.match(
        log,
        /^netweir: checkpoint ".*\/data\/shop\/books" now leads through a symlink to outside the project's data directory \(planted after the job was scheduled\); the job did not start$/m,
      );
      assert.deepEqual(await readdir(outside), [], "nothing was written through the links");
    });
  } finally {
    await stopQuietly(service);
    await site.close();
  }
});
