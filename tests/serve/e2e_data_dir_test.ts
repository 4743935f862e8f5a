/** A job's warc and har in folders of the project's data directory: made as the job starts, not a failed job. */
import assert from "node:assert/strict";
import { stat } from "node:fs/promises";
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
