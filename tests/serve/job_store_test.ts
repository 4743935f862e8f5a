import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { JobStore } from "../../src/serve/job_store.ts";
import { JobExistsError } from "../../src/serve/types.ts";
import { fakeJob, withTempDir } from "./_job_helpers.ts";

async function withStore(body: (store: JobStore, path: string) => void | Promise<void>): Promise<void> {
  await withTempDir(async (dir) => {
    const path = join(dir, "jobs.db");
    const store = new JobStore(path);
    try {
      await body(store, path);
    } finally {
      store.close();
    }
  });
}

Deno.test("a job added to the store comes back with every field, waiting", async () => {
  await withStore((store) => {
    const job = { ...fakeJob("a1", "/srv/shop", ["category=fiction"], 3), settings: ["max_items=5", "concurrency=2"] };
    const added = store.add(job, 1000);
    assert.deepEqual(added, {
      ...job,
      state: "pending",
      outcome: null,
      createdAt: 1000,
      startedAt: null,
      endedAt: null,
      pid: null,
      schedule: null,
    });
    assert.deepEqual(store.get("a1"), added);
    assert.equal(store.get("nope"), undefined);
  });
});

Deno.test("job ids ignore case: kept as given, found in any case, taken in any case", async () => {
  await withStore((store) => {
    assert.equal(store.add(fakeJob("Job1", "/srv")).id, "Job1");
    assert.equal(store.get("JOB1")?.id, "Job1");
    assert.throws(() => store.add(fakeJob("job1", "/srv")), JobExistsError);
    assert.throws(() => store.add(fakeJob("JoB1", "/srv")), { name: "JobExistsError", message: /JoB1/ });
    assert.equal(store.list().length, 1);
  });
});

Deno.test("listing gives jobs oldest first, all or one project's in any case", async () => {
  await withStore((store) => {
    store.add({ ...fakeJob("c", "/srv"), project: "news" }, 30);
    store.add(fakeJob("a", "/srv"), 10);
    store.add(fakeJob("b", "/srv"), 10); // same millisecond: the order they came in
    assert.deepEqual(store.list().map((job) => job.id), ["a", "b", "c"]);
    assert.deepEqual(store.list("SHOP").map((job) => job.id), ["a", "b"]);
    assert.deepEqual(store.list("news").map((job) => job.id), ["c"]);
    assert.deepEqual(store.list("other"), []);
  });
});

Deno.test("the next waiting job is the highest priority, then the oldest", async () => {
  await withStore((store) => {
    store.add(fakeJob("low", "/srv", [], 0), 1);
    store.add(fakeJob("high-late", "/srv", [], 5), 3);
    store.add(fakeJob("high-early", "/srv", [], 5), 2);
    store.add(fakeJob("negative", "/srv", [], -1), 0);
    const order: string[] = [];
    for (let job = store.nextPending(); job; job = store.nextPending()) {
      order.push(job.id);
      assert.equal(store.markRunning(job.id, 100, 50), true);
    }
    assert.deepEqual(order, ["high-early", "high-late", "low", "negative"]);
  });
});

Deno.test("a job moves from waiting to running to finished, and only forward", async () => {
  await withStore((store) => {
    store.add(fakeJob("j", "/srv"), 1);
    assert.equal(store.markRunning("J", 4321, 2), true);
    assert.equal(store.markRunning("j", 1, 3), false);
    assert.deepEqual(store.counts(), { pending: 0, running: 1, finished: 0 });
    assert.equal(store.markFinished("j", "failed", 4), true);
    assert.equal(store.markFinished("j", "finished", 5), false);
    const job = store.get("j")!;
    assert.deepEqual(
      [job.state, job.outcome, job.pid, job.startedAt, job.endedAt],
      ["finished", "failed", 4321, 2, 4],
    );
    assert.equal(store.removePending("j"), false);
  });
});

Deno.test("removing a waiting job deletes it; a running one is not removed", async () => {
  await withStore((store) => {
    store.add(fakeJob("wait", "/srv"));
    store.add(fakeJob("run", "/srv"));
    store.markRunning("run", 1);
    assert.equal(store.removePending("WAIT"), true);
    assert.equal(store.removePending("run"), false);
    assert.deepEqual(store.list().map((job) => job.id), ["run"]);
  });
});

Deno.test("jobs left running by a dead service are finished as lost when the store is reopened", async () => {
  await withTempDir((dir) => {
    const path = join(dir, "jobs.db");
    const first = new JobStore(path);
    first.add(fakeJob("was-running", dir), 1);
    first.add(fakeJob("was-waiting", dir), 2);
    first.markRunning("was-running", 999, 3);
    // No close(): the service died. Every change was already on disk.
    const second = new JobStore(path);
    try {
      const lost = second.markRunningAsLost(10);
      assert.deepEqual(lost.map((job) => [job.id, job.state, job.outcome, job.endedAt]), [
        ["was-running", "finished", "lost", 10],
      ]);
      assert.deepEqual(second.get("was-running")?.outcome, "lost");
      assert.deepEqual(second.get("was-waiting")?.state, "pending");
      assert.deepEqual(second.markRunningAsLost(11), []);
    } finally {
      second.close();
      first.close();
    }
  });
});

Deno.test("pruning forgets the finished jobs beyond the newest keep and returns them", async () => {
  await withStore((store) => {
    for (const [id, end] of [["f1", 10], ["f2", 30], ["f3", 20], ["f4", 40]] as const) {
      store.add(fakeJob(id, "/srv"));
      store.markFinished(id, "finished", end);
    }
    store.add(fakeJob("waiting", "/srv"));
    store.add(fakeJob("running", "/srv"));
    store.markRunning("running", 5);
    assert.deepEqual(store.prune(2).map((job) => job.id).sort(), ["f1", "f3"]);
    assert.deepEqual(store.list().map((job) => job.id), ["f2", "f4", "waiting", "running"]);
    assert.deepEqual(store.prune(2), []);
    assert.deepEqual(store.prune(0).map((job) => job.id).sort(), ["f2", "f4"]);
    assert.deepEqual(store.counts(), { pending: 1, running: 1, finished: 0 });
    assert.throws(() => store.prune(-1), RangeError);
  });
});

Deno.test("jobs cancelled before they started don't take --keep slots from jobs that ran: they have keep of their own", async () => {
  await withStore((store) => {
    for (const [id, end] of [["ran1", 10], ["ran2", 20]] as const) {
      store.add(fakeJob(id, "/srv"));
      store.markRunning(id, 100, end - 5);
      store.markFinished(id, "finished", end);
    }
    for (const [id, end] of [["gone1", 30], ["gone2", 40], ["gone3", 50]] as const) {
      store.add(fakeJob(id, "/srv"));
      store.markFinished(id, "cancelled", end);
    }
    // Counted together, the two that ran would be the oldest two and forgotten first.
    assert.deepEqual(store.prune(2).map((job) => job.id), ["gone1"]);
    assert.deepEqual(store.list().map((job) => [job.id, job.outcome]), [
      ["ran1", "finished"],
      ["ran2", "finished"],
      ["gone2", "cancelled"],
      ["gone3", "cancelled"],
    ]);
  });
});

Deno.test("the job table is in WAL mode with an index for waiting jobs and one per project", async () => {
  await withStore((store, path) => {
    store.add(fakeJob("x", "/srv"));
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      assert.equal(db.prepare("PRAGMA journal_mode").get()?.journal_mode, "wal");
      const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'jobs'").all()
        .map((row) => row.name);
      assert.ok(indexes.includes("jobs_waiting") && indexes.includes("jobs_by_project"), String(indexes));
      // Another connection sees the job at once: it was committed before add() returned.
      assert.equal(db.prepare("SELECT id FROM jobs").get()?.id, "x");
    } finally {
      db.close();
    }
  });
});

Deno.test("a jobs.db made before schedules opens with its jobs, each linked to no schedule", async () => {
  await withTempDir((dir) => {
    const path = join(dir, "jobs.db");
    const old = new DatabaseSync(path);
    old.exec(
      "CREATE TABLE jobs (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE COLLATE NOCASE, " +
        "project TEXT NOT NULL, spider TEXT NOT NULL, file TEXT NOT NULL, cwd TEXT NOT NULL, priority INTEGER NOT NULL, " +
        "settings TEXT NOT NULL, args TEXT NOT NULL, state TEXT NOT NULL, outcome TEXT, created_at INTEGER NOT NULL, " +
        "started_at INTEGER, ended_at INTEGER, pid INTEGER)",
    );
    old.exec(
      "INSERT INTO jobs (id, project, spider, file, cwd, priority, settings, args, state, created_at) " +
        `VALUES ('old1', 'shop', 'books', '/x.ts', '/', 0, '[]', '[]', 'pending', 5)`,
    );
    old.close();
    const store = new JobStore(path);
    try {
      assert.equal(store.get("old1")?.schedule, null);
      assert.equal(store.add({ ...fakeJob("new1", "/srv"), schedule: "nightly" }).schedule, "nightly");
    } finally {
      store.close();
    }
  });
});

Deno.test("a job's end and its alert are one transaction: both on disk, or neither when the body fails", async () => {
  await withStore((store, path) => {
    const outbox = store.alertOutbox();
    store.add(fakeJob("kept", "/tmp"));
    store.add(fakeJob("undone", "/tmp"));
    const alert = { url: "http://127.0.0.1:9/h", body: "{}", what: "job kept ended" };
    store.together(() => {
      store.markFinished("kept", "finished");
      outbox.add(alert, 1);
    });
    assert.throws(() =>
      store.together(() => {
        store.markFinished("undone", "finished");
        outbox.add({ ...alert, what: "job undone ended" }, 2);
        throw new Error("killed here");
      }), /killed here/);
    // Read through a connection of its own: what is on disk.
    const disk = new DatabaseSync(path);
    try {
      const states = disk.prepare("SELECT id, state FROM jobs ORDER BY seq").all().map((row) =>
        `${row.id} ${row.state}`
      );
      assert.deepEqual(states, ["kept finished", "undone pending"]);
      const alerts = disk.prepare("SELECT what FROM alerts").all().map((row) => row.what);
      assert.deepEqual(alerts, ["job kept ended"]);
    } finally {
      disk.close();
    }
    outbox.close();
    assert.equal(store.get("kept")?.state, "finished", "closing the outbox leaves the store's connection open");
  });
});

Deno.test("jobs found running at a start are marked lost in the same transaction as what is done with them", async () => {
  await withStore((store) => {
    const outbox = store.alertOutbox();
    store.add(fakeJob("cut", "/tmp"));
    store.markRunning("cut", 4242);
    assert.throws(() =>
      store.markRunningAsLost(5, (lost) => {
        for (const job of lost) outbox.add({ url: "http://127.0.0.1:9/h", body: "{}", what: `job ${job.id} ended` }, 5);
        throw new Error("killed here");
      }), /killed here/);
    assert.deepEqual([store.get("cut")?.state, outbox.count()], ["running", 0], "neither happened");
    const seen: string[] = [];
    const lost = store.markRunningAsLost(6, (jobs) => seen.push(...jobs.map((job) => `${job.id} ${job.outcome}`)));
    assert.deepEqual(seen, ["cut lost"]);
    assert.deepEqual(lost.map((job) => [job.id, job.state, job.endedAt]), [["cut", "finished", 6]]);
    outbox.close();
  });
});
