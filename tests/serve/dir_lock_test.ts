import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runtime } from "../../src/runtime/mod.ts";
import { acquireDirLock } from "../../src/serve/dir_lock.ts";
import { openJobService } from "../../src/serve/job_service.ts";
import { startScript } from "../helpers/cli.ts";
import { FAKE_CRAWL, memoryLog, withTempDir } from "./_job_helpers.ts";

const HOLDER = fileURLToPath(new URL("./fixtures/hold_dir_lock.ts", import.meta.url));

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

Deno.test("a second lock on the same dir fails, naming the dir and the holder's pid, until the first is released", async () => {
  await withTempDir(async (dir) => {
    const first = await acquireDirLock(dir);
    await assert.rejects(
      acquireDirLock(dir),
      new RegExp(`^Error: ${escape(dir)} is in use by another netweir serve \\(pid ${runtime.pid}\\)`),
    );
    await first.release();
    const second = await acquireDirLock(join(dir, "."));
    await second.release();
    await second.release(); // twice is harmless
  });
});

Deno.test("a dir locked by another process cannot be locked, and can be once that process is killed with -9", async () => {
  await withTempDir(async (dir) => {
    const holder = startScript(HOLDER, [dir]);
    try {
      const locked = await holder.waitFor(/locked pid=\d+/);
      assert.equal(locked, `locked pid=${holder.pid}`);
      await assert.rejects(
        acquireDirLock(dir),
        new RegExp(`${escape(dir)} is in use by another netweir serve \\(pid ${holder.pid}\\)`),
      );
    } finally {
      await holder.kill("SIGKILL");
      await holder.wait();
    }
    // Its lock file and pid file are still there; the lock itself died with the process.
    assert.deepEqual((await readdir(dir)).sort(), ["serve.lock", "serve.pid"]);
    const lock = await acquireDirLock(dir);
    await lock.release();
  });
});

Deno.test("a job service on a dir another one holds stops before it touches anything else in the dir", async () => {
  await withTempDir(async (dir) => {
    const held = await acquireDirLock(dir);
    try {
      await assert.rejects(
        openJobService({ dir, maxJobs: 1, cliCommand: FAKE_CRAWL, log: memoryLog() }),
        /is in use by another netweir serve/,
      );
      assert.deepEqual((await readdir(dir)).sort(), ["serve.lock", "serve.pid"]);
    } finally {
      await held.release();
    }
    const service = await openJobService({ dir, maxJobs: 1, cliCommand: FAKE_CRAWL, log: memoryLog() });
    assert.ok((await readdir(dir)).includes("jobs.db"));
    await service.close();
    // Closed: the next service gets the dir.
    const next = await acquireDirLock(dir);
    await next.release();
  });
});
