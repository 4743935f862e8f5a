/**
 * The monitor_failed outcome: told from a failed crawl by the stats the crawl left (job_outcome.ts), kept by the
 * job table, including one made before the outcome existed (its CHECK is replaced, its rows kept), and an alert's
 * payload for it. Fast (no process).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { alertPayload } from "../../src/serve/alert_payload.ts";
import { jobOutcome, monitorVerdict } from "../../src/serve/job_outcome.ts";
import { JobStore } from "../../src/serve/job_store.ts";
import { record, withTempDir } from "./_setup.ts";

const FAILED_MONITORS = {
  passed: false,
  checked: ["coverage.title"],
  failed: [{ monitor: "coverage.title", message: "title in 5 of 10 items (50%), fewer than 100%" }],
};
const ENDED = { finish_reason: "finished", pages: 12, items: 10, errors: 0, elapsed_seconds: 3.4 };

Deno.test("exit 1 with a failed monitors verdict is monitor_failed; without one, or with nothing fetched, failed", () => {
  const exit = (code: number | null, signal: string | null = null) => ({ code, signal });
  const stats = { ...ENDED, monitors: FAILED_MONITORS };
  assert.equal(jobOutcome(exit(1), false, stats), "monitor_failed");
  assert.equal(jobOutcome(exit(0), false, stats), "finished");
  assert.equal(jobOutcome(exit(1), true, stats), "cancelled");
  assert.equal(jobOutcome(exit(1), false, { ...ENDED }), "failed", "no monitors: the crawl itself failed");
  assert.equal(jobOutcome(exit(1), false, null), "failed", "no stats at all");
  assert.equal(jobOutcome(exit(1), false, { ...stats, pages: 0 }), "failed", "nothing fetched comes first");
  assert.equal(jobOutcome(exit(1), false, { ...stats, finish_reason: null }), "failed", "it never got to its end");
  assert.equal(jobOutcome(exit(2), false, stats), "failed", "a refused setting is not a monitor");
  assert.equal(jobOutcome(exit(null, "SIGKILL"), false, stats), "failed");
  const passed = { ...ENDED, monitors: { passed: true, checked: ["min_items"], failed: [] } };
  assert.equal(jobOutcome(exit(1), false, passed), "failed");
  assert.deepEqual(monitorVerdict(stats), FAILED_MONITORS);
  assert.equal(monitorVerdict({ monitors: "yes" }), null);
});

Deno.test("a jobs.db made before monitor_failed takes it after opening, with its rows, ids and order kept", async () => {
  // deno-lint-ignore require-await
  await withTempDir(async (dir) => {
    const path = join(dir, "jobs.db");
    // The table as the service wrote it before this outcome (its CHECK lists four).
    const old = new DatabaseSync(path);
    old.exec(`CREATE TABLE jobs (
      seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE COLLATE NOCASE, project TEXT NOT NULL,
      spider TEXT NOT NULL, file TEXT NOT NULL, cwd TEXT NOT NULL, priority INTEGER NOT NULL, settings TEXT NOT NULL,
      args TEXT NOT NULL, state TEXT NOT NULL CHECK (state IN ('pending', 'running', 'finished')),
      outcome TEXT CHECK (outcome IN ('finished', 'failed', 'cancelled', 'lost')), created_at INTEGER NOT NULL,
      started_at INTEGER, ended_at INTEGER, pid INTEGER, schedule TEXT)`);
    const insert = old.prepare(
      "INSERT INTO jobs (id, project, spider, file, cwd, priority, settings, args, state, outcome, created_at) " +
        "VALUES (?, 'shop', 'books', '/b.ts', '/', 0, '[\"max_items=5\"]', '[]', ?, ?, ?)",
    );
    insert.run("Old-1", "finished", "failed", 1000);
    insert.run("old-2", "pending", null, 2000);
    assert.throws(() => old.prepare("UPDATE jobs SET outcome = 'monitor_failed' WHERE id = 'Old-1'").run());
    old.close();

    const store = new JobStore(path);
    try {
      assert.deepEqual(store.list().map((job) => [job.id, job.state, job.outcome, job.settings]), [
        ["Old-1", "finished", "failed", ["max_items=5"]],
        ["old-2", "pending", null, ["max_items=5"]],
      ]);
      store.markRunning("old-2", 42);
      assert.equal(store.markFinished("OLD-2", "monitor_failed"), true);
      assert.equal(store.get("old-2")?.outcome, "monitor_failed");
      store.add({
        id: "new-3",
        project: "shop",
        spider: "books",
        file: "/b.ts",
        cwd: "/",
        priority: 0,
        settings: [],
        args: [],
      });
      assert.deepEqual(store.list().map((job) => job.id), ["Old-1", "old-2", "new-3"]);
      assert.equal(store.nextPending()?.id, "new-3", "the waiting index is there again");
    } finally {
      store.close();
    }
    // Opened again, nothing is copied a second time.
    const again = new JobStore(path);
    try {
      assert.equal(again.list().length, 3);
    } finally {
      again.close();
    }
  });
});

Deno.test("an alert for a job whose monitor failed says so in its text and carries the verdict, stats and masked settings", () => {
  const job = record({
    id: "books-7",
    project: "shop",
    spider: "books",
    state: "finished",
    outcome: "monitor_failed",
    startedAt: Date.UTC(2026, 11, 1, 10, 0, 0),
    endedAt: Date.UTC(2026, 11, 1, 10, 0, 4),
    settings: ["alert_webhook=https://hooks.slack.com/services/T1/B2/s3cret", "http_auth=shop.example=me:pw"],
    args: ["token=abc", "site=http://127.0.0.1:8000/"],
  });
  const stats = { ...ENDED, monitors: FAILED_MONITORS, series: [[1, 2, 3]] };
  const payload = alertPayload("ended", job, "box", stats);
  assert.equal(
    payload.text,
    "netweir job books-7 (shop/books) on box finished, but a monitor failed. 12 pages, 10 items, 0 errors in 3 s. " +
      "coverage.title: title in 5 of 10 items (50%), fewer than 100%",
  );
  assert.equal(payload.event, "ended");
  assert.equal(payload.job.outcome, "monitor_failed");
  assert.equal(payload.job.start_time, "2026-12-01T10:00:00.000Z");
  assert.equal(payload.job.log_url, "/logs/shop/books/books-7.log");
  assert.equal(payload.job.page_url, "/job/shop/books-7");
  assert.deepEqual(payload.job.settings, {
    alert_webhook: "https://hooks.slack.com/***",
    http_auth: "shop.example=me:***",
  });
  assert.deepEqual(payload.job.args, { token: "***", site: "http://127.0.0.1:8000/" });
  assert.deepEqual(payload.monitors, FAILED_MONITORS);
  assert.equal(payload.stats?.items, 10);
  assert.equal("series" in (payload.stats ?? {}), false, "the chart's points stay on the job page");
  assert.ok(!JSON.stringify(payload).includes("s3cret") && !JSON.stringify(payload).includes(":pw"));

  const finished = alertPayload("ended", { ...job, outcome: "finished" }, "box", {
    ...ENDED,
    finish_reason: "max_items",
  });
  assert.match(finished.text, /^netweir job books-7 \(shop\/books\) on box finished \(max_items\)\. 12 pages/);
  const started = alertPayload("started", { ...job, state: "running", outcome: null }, "box", null);
  assert.equal(started.text, "netweir job books-7 (shop/books) on box started");
  assert.equal(started.stats, null);
});
