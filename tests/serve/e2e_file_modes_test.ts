/**
 * Every file a running `netweir serve` and its jobs make under --dir is its user's alone: jobs.db and its -wal and
 * -shm (every job's settings and arguments, logins included), the job logs (others could forge lines dashboards
 * trust), items, stats, checkpoints, the lock. Checked with stat on the real files, under the usual umask 022 that
 * the test inherits; a jobs.db an older version left 0644 is made 0600 at the next start.
 */
import assert from "node:assert/strict";
import { chmod, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { type ServeProcess, startServe, stopQuietly } from "./_e2e_service.ts";
import { withTempDir } from "./_setup.ts";

/** Every file and folder under `dir` (itself included), with its permission bits. */
async function modes(dir: string): Promise<Map<string, number>> {
  const found = new Map<string, number>([[dir, (await stat(dir)).mode & 0o777]]);
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    found.set(path, (await stat(path)).mode & 0o777);
  }
  return found;
}

/** The entries of `found` whose mode is not 0700 for a folder or 0600 for a file, as "PATH MODE" lines. */
async function notPrivate(found: Map<string, number>): Promise<string[]> {
  const wrong: string[] = [];
  for (const [path, mode] of found) {
    const wanted = (await stat(path)).isDirectory() ? 0o700 : 0o600;
    if (mode !== wanted) wrong.push(`${path} ${mode.toString(8)}`);
  }
  return wrong;
}

Deno.test("every file and folder serve and its jobs make under --dir is 0600 or 0700, jobs.db and its WAL included", async () => {
  const site = await startFixtureSite({ books: 3 });
  let service: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      const serveDir = join(dir, "serve");
      service = await startServe(serveDir);
      const scheduled = await service.post("schedule.json", {
        project: "shop",
        spider: "books",
        jobid: "private",
        site: site.url,
        password: "hunter2",
        setting: ["checkpoint=books", "http_auth=127.0.0.1=me:hunter2", "deltafetch=seen"],
      });
      assert.equal(scheduled.status, "ok", JSON.stringify(scheduled));
      const job = await service.waitForJob("private", "finished");
      assert.equal(job.outcome, "finished", (await service.text(job.log_url)).body);

      // While the service runs: jobs.db's -wal and -shm are there (SQLite removes them at close).
      const found = await modes(serveDir);
      for (const name of ["jobs.db", "jobs.db-wal", "jobs.db-shm", "serve.lock", "serve.pid"]) {
        assert.ok(found.has(join(serveDir, name)), `${name} is there`);
      }
      for (const kind of ["logs", "items", "stats"]) {
        const file = join(
          serveDir,
          kind,
          "shop",
          "books",
          `private.${kind === "logs" ? "log" : kind === "items" ? "jl" : "json"}`,
        );
        assert.ok(found.has(file), `${file} is there`);
      }
      assert.ok(
        [...found.keys()].some((path) => path.startsWith(join(serveDir, "data", "shop", "books"))),
        "a checkpoint",
      );
      assert.deepEqual(await notPrivate(found), []);

      // As an older version left it: jobs.db readable by all. The next start makes it private again.
      await service.stop();
      await chmod(join(serveDir, "jobs.db"), 0o644);
      service = await startServe(serveDir);
      assert.equal((await stat(join(serveDir, "jobs.db"))).mode & 0o777, 0o600);
      assert.deepEqual(await notPrivate(await modes(serveDir)), []);
    });
  } finally {
    await stopQuietly(service);
    await site.close();
  }
});
