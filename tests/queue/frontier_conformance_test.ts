/**
 * One frontier contract, three stores: the same cases run against the memory store, the checkpoint (real SQLite)
 * and the Redis store (a real redis-server), so that no store can drift from what the engine relies on
 * (src/queue/frontier.ts).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CheckpointFrontier } from "../../src/queue/checkpoint.ts";
import type { Frontier } from "../../src/queue/frontier.ts";
import { MemoryFrontier } from "../../src/queue/memory.ts";
import { RedisFrontier } from "../../src/queue/redis_frontier.ts";
import type { Page } from "../../src/spider/page.ts";
import { Request } from "../../src/spider/request.ts";
import { Spider } from "../../src/spider/spider.ts";
import { startRedis } from "../helpers/redis.ts";

class Books extends Spider {
  parseBook(_page: Page) {}
}

const quiet = { debug() {}, info() {}, warning() {}, error() {} };
const url = (n: number | string, host = "127.0.0.1") => `http://${host}:9/page/${n}`;
const urls = (leases: { request: Request }[]) => leases.map((lease) => lease.request.url);

/** A kind of store: what it needs for a run of the cases, and a fresh store for each case. */
interface StoreKind {
  name: string;
  /** Starts what the stores need (a redis-server, a directory) and returns a way to open one, and to clean up. */
  setUp(): Promise<{ open(): Promise<Frontier>; tearDown(): Promise<void> }>;
}

let keys = 0;

const KINDS: StoreKind[] = [
  {
    name: "memory",
    setUp: () => Promise.resolve({ open: () => Promise.resolve(new MemoryFrontier()), tearDown: async () => {} }),
  },
  {
    name: "checkpoint",
    async setUp() {
      const dir = await mkdtemp(join(tmpdir(), "netweir-conformance-"));
      return {
        open: () => CheckpointFrontier.open({ dir: join(dir, `c${++keys}`), spider: new Books(), log: quiet }),
        tearDown: () => rm(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: "redis",
    async setUp() {
      const redis = await startRedis();
      return {
        open: () =>
          RedisFrontier.open({
            url: redis.url,
            key: `conformance-${++keys}`,
            spider: new Books(),
            log: quiet,
            leaseSeconds: 10,
            idleSeconds: 0,
          }),
        tearDown: () => redis.stop(),
      };
    },
  },
];

/** The cases, each run on a fresh store of every kind. */
const CASES: Array<[string, (store: Frontier) => Promise<void>]> = [
  ["push leaves out duplicates and says how many went in", async (store) => {
    assert.equal(await store.push([new Request(url(1)), new Request(url(2)), new Request(url(1))]), 2);
    assert.equal(await store.push([new Request(url(2)), new Request(url(3))]), 1);
    // The same URL written differently is the same request (canonical fingerprint).
    assert.equal(await store.push([new Request("http://127.0.0.1:9/page/3#top")]), 0);
    assert.deepEqual(await store.status(), { waiting: 3, held: 0, processes: 1, seen: 3, queued: 3 });
  }],
  ["dontFilter queues a seen request again, and queued counts it", async (store) => {
    await store.push([new Request(url(1))]);
    assert.equal(await store.push([new Request({ url: url(1), dontFilter: true })]), 1);
    assert.deepEqual(await store.status(), { waiting: 2, held: 0, processes: 1, seen: 1, queued: 2 });
  }],
  ["lease takes the highest priority first, first in first out within one, at most max", async (store) => {
    await store.push([
      new Request(url("a")),
      new Request({ url: url("urgent"), priority: 10 }),
      new Request(url("b")),
      new Request({ url: url("low"), priority: -5 }),
      new Request({ url: url("soon"), priority: 3 }),
    ]);
    assert.deepEqual(urls(await store.lease(2)), [url("urgent"), url("soon")]);
    assert.deepEqual(urls(await store.lease(10)), [url("a"), url("b"), url("low")]);
    assert.deepEqual(await store.lease(10), []);
    assert.deepEqual(await store.lease(0), []);
  }],
  ["a leased request comes back as it went in", async (store) => {
    const request = new Request({
      url: url("full"),
      method: "POST",
      headers: { "x-one": "1" },
      body: "a=1",
      callback: "parseBook",
      meta: { tag: ["x", 1] },
      cbKwargs: { n: 2 },
      priority: 4,
      depth: 3,
    });
    await store.push([request]);
    const [lease] = await store.lease(1);
    for (const field of ["url", "method", "headers", "body", "callback", "meta", "cbKwargs", "priority", "depth"]) {
      assert.deepEqual(lease.request[field as keyof Request], request[field as keyof Request], field);
    }
  }],
  [
    "leased requests are held until finished, and finishing queues what the page yielded, deduplicated",
    async (store) => {
      await store.push([new Request(url(1)), new Request(url(2))]);
      const [first] = await store.lease(1);
      assert.deepEqual(await store.status(), { waiting: 1, held: 1, processes: 1, seen: 2, queued: 2 });
      await store.finish(first, [new Request(url(2)), new Request(url(3)), new Request(url(3)), new Request(url(4))]);
      assert.deepEqual(await store.status(), { waiting: 3, held: 0, processes: 1, seen: 4, queued: 4 });
      assert.deepEqual(urls(await store.lease(10)), [url(2), url(3), url(4)]);
    },
  ],
  ["giveBack puts requests back at the front, in their order, bypassing the filter", async (store) => {
    await store.push([1, 2, 3, 4].map((n) => new Request(url(n))));
    const taken = await store.lease(2);
    await store.giveBack(taken);
    assert.deepEqual(await store.status(), { waiting: 4, held: 0, processes: 1, seen: 4, queued: 4 });
    assert.deepEqual(urls(await store.lease(10)), [url(1), url(2), url(3), url(4)]);
  }],
  ["skipHost passes over busy hosts and leaves their requests in place", async (store) => {
    await store.push([new Request(url(1, "a.test")), new Request(url(2, "a.test"))]);
    await store.push([new Request(url(1, "b.test"))]);
    const [held] = await store.lease(1);
    assert.equal(held.request.host, "a.test");
    const other = await store.lease(5, { skipHost: (host) => host === "a.test" });
    assert.deepEqual(urls(other), [url(1, "b.test")]);
    assert.deepEqual(urls(await store.lease(5)), [url(2, "a.test")]);
  }],
  ["ended is true only with nothing waiting and nothing held", async (store) => {
    assert.equal(await store.ended(), true);
    await store.push([new Request(url(1))]);
    assert.equal(await store.ended(), false);
    const leases = await store.lease(1);
    assert.equal(await store.ended(), false, "held");
    await store.finish(leases[0], []);
    assert.equal(await store.ended(), true);
  }],
  ["stats count what was pushed and leased", async (store) => {
    await store.push([1, 2, 3].map((n) => new Request(url(n))));
    const leases = await store.lease(2);
    await store.finish(leases[0], [new Request(url(4))]);
    const stats = store.stats();
    assert.equal(stats.pushed, 4);
    assert.equal(stats.leased, 2);
  }],
];

for (const kind of KINDS) {
  Deno.test(`the ${kind.name} store keeps the frontier contract`, async (t) => {
    const { open, tearDown } = await kind.setUp();
    try {
      for (const [name, body] of CASES) {
        await t.step(name, async () => {
          const store = await open();
          try {
            await body(store);
          } finally {
            await store.close();
          }
        });
      }
    } finally {
      await tearDown();
    }
  });
}
