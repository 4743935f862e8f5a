/** The checkpoint store against a real SQLite file: what a run leaves, the next one carries on from. */
import assert from "node:assert/strict";
import { CheckpointFrontier } from "../../src/queue/checkpoint.ts";
import type { Page } from "../../src/spider/page.ts";
import { Request } from "../../src/spider/request.ts";
import { Spider } from "../../src/spider/spider.ts";
import { createLogger } from "../../src/log.ts";
import { DatabaseSync } from "node:sqlite";

class Books extends Spider {
  parseBook(_page: Page) {}
}

const url = (n: number | string) => `http://127.0.0.1:9/page/${n}`;

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "netweir-checkpoint-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function open(dir: string, lines: string[] = []) {
  return CheckpointFrontier.open({
    dir: `${dir}/state`,
    spider: new Books(),
    log: createLogger("debug", (line) => void lines.push(line)),
  });
}

Deno.test("a checkpoint keeps priority order, first in first out, and a duplicate filter", async () => {
  await withDir(async (dir) => {
    const frontier = await open(dir);
    try {
      assert.equal(await frontier.push([new Request({ url: url(1) }), new Request({ url: url(2), priority: 5 })]), 2);
      assert.equal(await frontier.push([new Request({ url: url(1) })]), 0, "seen before");
      assert.equal(await frontier.push([new Request({ url: url(1), dontFilter: true })]), 1);
      const leases = await frontier.lease(10);
      assert.deepEqual(leases.map((lease) => lease.request.url), [url(2), url(1), url(1)]);
      assert.deepEqual(await frontier.status(), { waiting: 0, held: 3, processes: 1, seen: 2, queued: 3 });
      for (const lease of leases) await frontier.finish(lease, []);
      assert.equal(await frontier.ended(), true);
    } finally {
      await frontier.close();
    }
  });
});

Deno.test("what a run held and never finished is queued again in its place by the next run; the rest carries on", async () => {
  await withDir(async (dir) => {
    const first = await open(dir);
    await first.push([1, 2, 3].map((n) => new Request({ url: url(n) })));
    const [one, two] = await first.lease(2);
    await first.finish(one, [new Request({ url: url("from-1"), callback: new Books().parseBook, meta: { a: 1 } })]);
    first.saveStats({ pages: 1, items: 4, status: { "200": 1 }, dropped: { offsite: 2 } });
    // The process dies here: `two` is held, never finished. Closing without giving back is what a kill leaves.
    await first.close();
    void two;

    const lines: string[] = [];
    const second = await open(dir, lines);
    try {
      assert.ok(lines.some((line) => /1 requests the last run had not finished are queued again/.test(line)));
      const leases = await second.lease(10);
      assert.deepEqual(leases.map((lease) => lease.request.url), [url(2), url(3), url("from-1")]);
      const carried = leases[2].request;
      assert.equal(carried.callback, "parseBook");
      assert.deepEqual(carried.meta, { a: 1 });
      assert.equal(await second.push([new Request({ url: url(1) })]), 0, "the filter survived");
      assert.deepEqual(second.savedStats(), { pages: 1, items: 4, status: { "200": 1 }, dropped: { offsite: 2 } });
      assert.deepEqual(second.stats(), { pushed: 4, leased: 5 });
    } finally {
      await second.close();
    }
  });
});

Deno.test("given-back requests go back to their place, and a request that cannot be kept is dropped with an error", async () => {
  await withDir(async (dir) => {
    const lines: string[] = [];
    const frontier = await open(dir, lines);
    try {
      await frontier.push([1, 2, 3].map((n) => new Request({ url: url(n) })));
      const [first] = await frontier.lease(1);
      await frontier.giveBack([first]);
      assert.deepEqual((await frontier.lease(3)).map((lease) => lease.request.url), [url(1), url(2), url(3)]);
      const arrow = new Request({ url: url("x"), callback: () => undefined });
      assert.equal(await frontier.push([arrow]), 0);
      assert.equal(frontier.stats()["dropped.unqueueable"], 1);
      assert.ok(lines.some((line) => /cannot keep .* in the checkpoint/.test(line)));
    } finally {
      await frontier.close();
    }
  });
});

Deno.test("a checkpoint is one crawl's: a second one on the same directory is refused while the first has it", async () => {
  await withDir(async (dir) => {
    const first = await open(dir);
    try {
      await assert.rejects(open(dir), /checkpoint .* is in use by another crawl/);
    } finally {
      await first.close();
    }
    const after = await open(dir);
    await after.close();
  });
});

Deno.test("checkpoint rows over the entry bounds are dropped as queue_bad when leased, and never written", async () => {
  await withDir(async (dir) => {
    const lines: string[] = [];
    // Written under generous bounds, read under the defaults (1 MB, 64 deep, 100 headers).
    const generous = await CheckpointFrontier.open({
      dir: `${dir}/state`,
      spider: new Books(),
      log: createLogger("debug", (line) => void lines.push(line)),
      limits: { maxBytes: 64 * 1024 * 1024, maxDepth: 1000, maxHeaders: 1000 },
    });
    const headers = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`x-h${i}`, "1"]));
    await generous.push([
      new Request({ url: url("big"), method: "POST", body: "x".repeat(2 * 1024 * 1024) }),
      new Request({ url: url("deep"), meta: { a: JSON.parse("[".repeat(63) + "]".repeat(63)) } }),
      new Request({ url: url("headers"), headers }),
      new Request({ url: url("fine") }),
    ]);
    await generous.close();
    const frontier = await open(dir, lines);
    try {
      const leases = await frontier.lease(10);
      assert.deepEqual(leases.map((lease) => lease.request.url), [url("fine")]);
      assert.equal(frontier.stats().queue_bad, 3);
      assert.equal(lines.filter((line) => /dropped from the checkpoint/.test(line)).length, 3);
      assert.deepEqual(await frontier.status(), { waiting: 0, held: 1, processes: 1, seen: 4, queued: 4 });
      // Under the defaults the same requests are not written at all: they are unqueueable.
      await frontier.finish(leases[0], [
        new Request({ url: url("big-2"), method: "POST", body: "x".repeat(2 * 1024 * 1024) }),
        new Request({ url: url("headers-2"), headers }),
      ]);
      assert.equal(frontier.stats()["dropped.unqueueable"], 2);
      assert.equal((await frontier.status()).waiting, 0);
    } finally {
      await frontier.close();
    }
  });
});

/** What the file itself says, counted by SQLite, to hold the store's own counters to. */
function countedInFile(dir: string): { waiting: number; held: number; seen: number } {
  const db = new DatabaseSync(`${dir}/state/frontier.db`, { readOnly: true });
  try {
    const count = (table: string) =>
      Number((db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n);
    return { waiting: count("queue"), held: count("held"), seen: count("seen") };
  } finally {
    db.close();
  }
}

Deno.test("the counts of waiting, held and seen requests agree with the file, after every step and a restart", async () => {
  await withDir(async (dir) => {
    const first = await open(dir);
    const counts = async (frontier: CheckpointFrontier) => {
      const { waiting, held, seen } = await frontier.status();
      return { waiting, held, seen };
    };
    await first.push([1, 2, 3, 4, 5, 1].map((n) => new Request({ url: url(n) })));
    await first.push([new Request({ url: url(2), dontFilter: true })]);
    const [a, b, c] = await first.lease(3);
    await first.finish(a, [new Request({ url: url(6) }), new Request({ url: url(1) }), new Request({ url: url(6) })]);
    await first.giveBack([b]);
    await first.giveBack([b]);
    await first.finish(b, []);
    assert.deepEqual(await counts(first), { waiting: 5, held: 1, seen: 6 });
    void c;
    await first.close();
    assert.deepEqual(countedInFile(dir), { waiting: 5, held: 1, seen: 6 }, "c is held when the run ends");

    const second = await open(dir);
    try {
      assert.deepEqual(await counts(second), { waiting: 6, held: 0, seen: 6 }, "c is queued again");
      const leases = await second.lease(100);
      assert.equal(leases.length, 6);
      assert.deepEqual(await counts(second), { waiting: 0, held: 6, seen: 6 });
      for (const lease of leases) await second.finish(lease, []);
      assert.deepEqual(await counts(second), { waiting: 0, held: 0, seen: 6 });
      assert.equal(await second.ended(), true);
    } finally {
      await second.close();
    }
    assert.deepEqual(countedInFile(dir), { waiting: 0, held: 0, seen: 6 });
  });
});

Deno.test("a request that could not be kept is not marked seen: the same URL in a form that can be kept goes in", async () => {
  await withDir(async (dir) => {
    const frontier = await open(dir);
    try {
      assert.equal(await frontier.push([new Request({ url: url(1), meta: { when: new Date() } })]), 0);
      assert.equal(await frontier.push([new Request({ url: url(1), meta: { when: "today" } })]), 1);
      assert.equal((await frontier.status()).seen, 1);
      assert.equal(frontier.stats()["dropped.unqueueable"], 1);
    } finally {
      await frontier.close();
    }
  });
});
