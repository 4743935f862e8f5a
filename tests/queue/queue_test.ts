/**
 * The Queue (what `netweir queue` runs) against a real redis-server: pushes are deduplicated by the crawl's own
 * filter, land where a crawl's RedisFrontier leases them, and clear touches nothing but its own crawl's keys.
 */
import assert from "node:assert/strict";
import { hostList } from "./_layout.ts";
import { QueueError } from "../../src/errors.ts";
import { createLogger } from "../../src/log.ts";
import { encodeRequest } from "../../src/queue/codec.ts";
import { Queue } from "../../src/queue/queue.ts";
import { RedisFrontier } from "../../src/queue/redis_frontier.ts";
import type { Page } from "../../src/spider/page.ts";
import { Request } from "../../src/spider/request.ts";
import { Spider } from "../../src/spider/spider.ts";
import { freePort } from "../helpers/free_port.ts";
import { ManualClock } from "../helpers/manual_clock.ts";
import { type RedisServer, startRedis } from "../helpers/redis.ts";

class Books extends Spider {
  override parse(page: Page) {
    return { url: page.url };
  }
  parseBook(page: Page) {
    return { book: page.url };
  }
}

const quiet = createLogger("error", () => {});

function openFrontier(redis: RedisServer, key: string, spider: Spider = new Books()): Promise<RedisFrontier> {
  return RedisFrontier.open({ url: redis.url, key, spider, log: quiet, leaseSeconds: 60, idleSeconds: null });
}

/** Runs `body` with a fresh redis-server and a Queue on it for crawl `key`, closing both afterwards. */
async function withQueue(key: string, body: (queue: Queue, redis: RedisServer) => Promise<void>): Promise<void> {
  const redis = await startRedis();
  const queue = new Queue(redis.url, key);
  try {
    await body(queue, redis);
  } finally {
    await queue.close();
    await redis.stop();
  }
}

const HOST = "127.0.0.1";
const page = (n: number) => `http://127.0.0.1:8000/catalogue/page-${n}.html`;

Deno.test("a URL the crawl has already seen is skipped, within one push and across pushes", async () => {
  await withQueue("Books", async (queue) => {
    assert.deepEqual(await queue.push([page(1), page(2), page(1)]), { pushed: 2, skipped: 1 });
    // The fingerprint is the canonical URL's: the fragment and the query order do not make a new request.
    assert.deepEqual(await queue.push([page(2) + "#top", page(3)]), { pushed: 1, skipped: 1 });
    assert.deepEqual(await queue.push(["http://127.0.0.1:8000/s?b=2&a=1", "http://127.0.0.1:8000/s?a=1&b=2"]), {
      pushed: 1,
      skipped: 1,
    });
    assert.deepEqual(await queue.status(), { waiting: 4, held: 0, processes: 0, seen: 4, queued: 4 });
  });
});

Deno.test("dontFilter queues seen URLs again, and then queued counts more than seen", async () => {
  await withQueue("Books", async (queue) => {
    assert.deepEqual(await queue.push([page(1), page(2)]), { pushed: 2, skipped: 0 });
    assert.deepEqual(await queue.push([page(1), page(2)], { dontFilter: true }), { pushed: 2, skipped: 0 });
    assert.deepEqual(await queue.push([page(1)]), { pushed: 0, skipped: 1 });
    assert.deepEqual(await queue.status(), { waiting: 4, held: 0, processes: 0, seen: 2, queued: 4 });
  });
});

Deno.test("a pushed URL is encoded exactly as the crawl encodes a start request with no callback", async () => {
  await withQueue("Books", async (queue, redis) => {
    await queue.push([page(1)]);
    await queue.push([page(2)], { priority: 7, dontFilter: true });
    const spider = new Books();
    assert.deepEqual(await redis.command("LRANGE", hostList("Books", 0, HOST), 0, -1), [
      encodeRequest(spider, new Request({ url: page(1) })),
    ]);
    assert.deepEqual(await redis.command("LRANGE", hostList("Books", 7, HOST), 0, -1), [
      encodeRequest(spider, new Request({ url: page(2), priority: 7, dontFilter: true })),
    ]);
  });
});

Deno.test("a crawl's frontier leases pushed URLs highest priority first, as start requests for parse", async () => {
  await withQueue("Books", async (queue, redis) => {
    await queue.push([page(1), page(2)]);
    await queue.push([page(10)], { priority: 10 });
    await queue.push([page(5)], { priority: 5 });
    await queue.push([page(-1)], { priority: -1 });
    const frontier = await openFrontier(redis, "Books");
    try {
      const leases = await frontier.lease(10);
      assert.deepEqual(leases.map((lease) => lease.request.url), [page(10), page(5), page(1), page(2), page(-1)]);
      for (const { request } of leases) {
        assert.equal(request.depth, 0);
        assert.equal(request.callback, undefined);
        assert.equal(request.rule, undefined);
        assert.equal(request.dontFilter, false);
      }
      assert.deepEqual(leases.map((lease) => lease.request.priority), [10, 5, 0, 0, -1]);
      assert.deepEqual(await queue.status(), { waiting: 0, held: 5, processes: 1, seen: 5, queued: 5 });
      // What the crawl yields from a pushed page is deduplicated against the pushed URLs.
      await frontier.finish(leases[0], [new Request({ url: page(5), depth: 1 }), new Request(page(11))]);
      assert.deepEqual(await queue.status(), { waiting: 1, held: 4, processes: 1, seen: 6, queued: 6 });
    } finally {
      await frontier.close();
    }
  });
});

Deno.test("a push sends each thousand before reading further, so it holds no more than a batch", async () => {
  await withQueue("Books", async (queue, redis) => {
    const waitingWhenAsked: number[] = [];
    async function* urls() {
      for (let i = 0; i < 2500; i++) {
        // Asked for the first URL of a new batch, the previous batches must already be in Redis.
        if (i % 1000 === 0) waitingWhenAsked.push(Number(await redis.command("LLEN", hostList("Books", 0, HOST))));
        yield page(i);
      }
    }
    assert.deepEqual(await queue.push(urls()), { pushed: 2500, skipped: 0 });
    assert.deepEqual(waitingWhenAsked, [0, 1000, 2000]);
    assert.equal((await queue.status()).waiting, 2500);
  });
});

Deno.test("a URL that is not http(s) is a TypeError naming it, and its batch is not sent", async () => {
  await withQueue("Books", async (queue) => {
    await assert.rejects(queue.push([page(1), "ftp://127.0.0.1/file"]), (error: Error) => {
      assert.ok(error instanceof TypeError);
      assert.match(error.message, /^URL 2: not an http\(s\) URL: "ftp:\/\/127\.0\.0\.1\/file"$/);
      return true;
    });
    await assert.rejects(queue.push(["not a url"]), TypeError);
    assert.equal((await queue.status()).queued, 0);

    // Batches before the bad URL are in the queue; the bad URL's batch is not.
    const urls = Array.from({ length: 1500 }, (_, i) => page(i));
    urls[1200] = "javascript:alert(1)";
    await assert.rejects(queue.push(urls), /URL 1201: not an http\(s\) URL/);
    assert.equal((await queue.status()).queued, 1000);
  });
});

Deno.test("a bad Redis URL, an empty key or a bad priority is refused before connecting", async () => {
  for (
    const url of ["http://127.0.0.1:6379/0", "rediss://127.0.0.1:1/0?key=k.pem", "garbage", "redis://127.0.0.1:1/x"]
  ) {
    assert.throws(() => new Queue(url, "Books"), TypeError, url);
  }
  assert.throws(() => new Queue("redis://:secret@127.0.0.1:1/0", ""), /queue key is empty/);
  assert.throws(() => new Queue("redis://127.0.0.1:1/0", "two words"), TypeError);
  assert.throws(
    () => new Queue("https://:secret@127.0.0.1:1/0", "Books"),
    (error: Error) => error instanceof TypeError && !error.message.includes("secret"),
  );
  // Nothing listens on port 1: a refusal before connecting is the only way these can be TypeErrors.
  const queue = new Queue("redis://127.0.0.1:1/0", "Books");
  await assert.rejects(queue.push([page(1)], { priority: Number.NaN }), RangeError);
  await queue.close();
});

Deno.test("a Redis that cannot be reached is a QueueError, with the password masked", async () => {
  const port = await freePort();
  const queue = new Queue(`redis://:secret@127.0.0.1:${port}/0`, "Books", { timeoutSeconds: 5 });
  try {
    for (const call of [() => queue.status(), () => queue.push([page(1)]), () => queue.clear()]) {
      await assert.rejects(call(), (error: Error) => {
        assert.ok(error instanceof QueueError, String(error));
        assert.match(error.message, /cannot reach the queue at redis:\/\/:\*\*\*@127\.0\.0\.1/);
        assert.ok(!error.message.includes("secret"), error.message);
        return true;
      });
    }
  } finally {
    await queue.close();
  }
});

Deno.test("a Queue that was closed refuses to be used", async () => {
  await withQueue("Books", async (queue) => {
    await queue.push([page(1)]);
    await queue.close();
    await assert.rejects(queue.status(), QueueError);
  });
});

/** Every key in the server, sorted. */
async function allKeys(redis: RedisServer): Promise<string[]> {
  return ((await redis.command("KEYS", "*")) as string[]).sort();
}

Deno.test("clear deletes every key of its crawl, held requests and processes included, and nothing else", async () => {
  await withQueue("Books", async (queue, redis) => {
    await queue.push([page(1), page(2), page(3)]);
    await queue.push([page(4), page(5)], { priority: 3 });
    // A process holding a request: its held and process keys are the crawl's too.
    const frontier = await openFrontier(redis, "Books");
    assert.equal((await frontier.lease(1)).length, 1);
    // Other crawls, including ones whose keys start with this crawl's prefix, and a key that is no crawl's.
    await using neighbour = new Queue(redis.url, "Books:2");
    await neighbour.push([page(1)]);
    await using lookalike = new Queue(redis.url, "Books2");
    await lookalike.push([page(1)]);
    await redis.command("SET", "netweir:{Books}", "not a crawl key");
    await redis.command("SET", "unrelated", "1");
    const before = await allKeys(redis);
    const own = before.filter((key) => key.startsWith("netweir:{Books}:"));
    assert.ok(own.some((key) => key.startsWith("netweir:{Books}:held:")), own.join(" "));
    assert.ok(own.includes("netweir:{Books}:procs") && own.includes(hostList("Books", 3, HOST)), own.join(" "));

    assert.equal(await queue.clear(), own.length);
    // A process was at work: a mark tells it the keys were cleared (it expires by itself).
    assert.deepEqual(
      await allKeys(redis),
      [...before.filter((key) => !own.includes(key)), "netweir:{Books}:cleared"].sort(),
    );
    assert.deepEqual(await queue.status(), { waiting: 0, held: 0, processes: 0, seen: 0, queued: 0 });
    assert.equal((await neighbour.status()).queued, 1);
    assert.equal((await lookalike.status()).queued, 1);
    // A cleared crawl starts from nothing: what it had seen can be pushed again.
    assert.deepEqual(await queue.push([page(1)]), { pushed: 1, skipped: 0 });
    // Its host's list, the priority's host list, the priorities, one filter bucket, the counters and the mark.
    assert.equal(await queue.clear(), 6);
    assert.equal(await queue.clear(), 0);
    await frontier.close();
  });
});

Deno.test("clear treats glob characters in the key literally", async () => {
  await withQueue("a*b", async (queue, redis) => {
    const keys = ["a*b", "aXb", "a?b", "a[b]", "a\\b", "ab", "a}b", "a}", "a"];
    const queues = keys.map((key) => new Queue(redis.url, key));
    try {
      for (const each of queues) await each.push([page(1)]);
      for (const [i, key] of keys.entries()) {
        const deleted = await queues[i].clear();
        assert.ok(deleted >= 3, `${key}: ${deleted}`);
        assert.equal((await queues[i].status()).queued, 0, key);
        // Every crawl after it in the list still has its keys.
        for (const later of queues.slice(i + 1)) assert.equal((await later.status()).queued, 1, key);
      }
      assert.deepEqual(await allKeys(redis), []);
      assert.equal(await queue.clear(), 0);
    } finally {
      for (const each of queues) await each.close();
    }
  });
});

Deno.test("clear of crawl pk leaves the crawls named pk:held, pk:q and pk:seen:0 alone", async () => {
  await withQueue("pk", async (pk, redis) => {
    const names = ["pk:held", "pk:q", "pk:seen:0", "pk:q:0", "pk:held:x"];
    const others = names.map((key) => new Queue(redis.url, key));
    try {
      // Each neighbour with a process holding one of its requests, so every kind of key is there.
      const frontiers = [];
      for (const [i, other] of others.entries()) {
        await other.push([page(1), page(2)]);
        const frontier = await openFrontier(redis, names[i]);
        await frontier.lease(1);
        frontiers.push(frontier);
      }
      await pk.push([page(1)]);
      const before = await allKeys(redis);
      // Its host's list, the priority's host list, the priorities, one filter bucket and the counters.
      assert.equal(await pk.clear(), 5);
      assert.equal((await allKeys(redis)).length, before.length - 5);
      for (const other of others) {
        const { waiting, held, seen } = await other.status();
        assert.deepEqual({ waiting, held, seen }, { waiting: 1, held: 1, seen: 2 });
      }
      for (const frontier of frontiers) await frontier.close();
    } finally {
      for (const other of others) await other.close();
    }
  });
});

Deno.test("many URLs through one Queue are counted exactly", async () => {
  await withQueue("Books", async (queue) => {
    const urls = function* () {
      for (let i = 0; i < 5000; i++) yield page(i % 3000);
    };
    assert.deepEqual(await queue.push(urls()), { pushed: 3000, skipped: 2000 });
    assert.deepEqual(await queue.status(), { waiting: 3000, held: 0, processes: 0, seen: 3000, queued: 3000 });
  });
});

Deno.test("status counts the processes heard from within their lease, not one that died holding nothing", async () => {
  await withQueue("Books", async (queue, redis) => {
    // A process whose clock never moves sends no heartbeat after its first, as one killed at once would.
    const silent = await RedisFrontier.open({
      url: redis.url,
      key: "Books",
      spider: new Books(),
      log: quiet,
      leaseSeconds: 1,
      idleSeconds: 1,
      clock: new ManualClock(),
    });
    try {
      assert.equal((await queue.status()).processes, 1);
      await new Promise((resolve) => setTimeout(resolve, 1300));
      assert.deepEqual(await queue.status(), { waiting: 0, held: 0, processes: 0, seen: 0, queued: 0 });
    } finally {
      await silent.close();
    }
  });
});
