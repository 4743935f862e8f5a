/**
 * The Redis store of the frontier against a real redis-server: sharing, the duplicate filter, leases, reclaim,
 * orphaned leases, and what it drops from the queue (garbage, forbidden callback and call-step names).
 */
import assert from "node:assert/strict";
import { keyPrefix } from "../../src/queue/redis_frontier.ts";
import { encodeRequest } from "../../src/queue/codec.ts";
import { Request } from "../../src/spider/request.ts";
import { startRedis } from "../helpers/redis.ts";
import { BAD_ENTRIES_SHOWN } from "../../src/queue/bad_entries.ts";
import { heldEntry, hostList, pushRaw, waitingEntries } from "./_layout.ts";
import { sleep } from "../helpers/wait.ts";
import { Books, newKey, openFrontier } from "./_frontier.ts";

const open = openFrontier;

const url = (n: number | string) => `http://127.0.0.1:9/page/${n}`;

Deno.test("requests pushed by one process are leased by another, each once, highest priority first", async () => {
  const redis = await startRedis();
  const key = newKey();
  const { frontier: a } = await open(redis.url, key);
  const { frontier: b } = await open(redis.url, key);
  try {
    assert.equal(await a.push([1, 2, 3].map((n) => new Request({ url: url(n) }))), 3);
    assert.equal(await a.push([new Request({ url: url("urgent"), priority: 5 })]), 1);
    const first = await b.lease(2);
    assert.deepEqual(first.map((lease) => lease.request.url), [url("urgent"), url(1)]);
    const rest = await a.lease(10);
    assert.deepEqual(rest.map((lease) => lease.request.url), [url(2), url(3)]);
    assert.deepEqual(await b.lease(10), []);
    assert.deepEqual(await b.status(), { waiting: 0, held: 4, processes: 2, seen: 4, queued: 4 });
    assert.equal(a.stats().pushed, 4);
    assert.equal(b.stats().leased, 2);
  } finally {
    await a.close();
    await b.close();
    await redis.stop();
  }
});

Deno.test("a request any process has seen is left out, unless it says dontFilter", async () => {
  const redis = await startRedis();
  const key = newKey();
  const { frontier: a } = await open(redis.url, key);
  const { frontier: b } = await open(redis.url, key);
  try {
    assert.equal(await a.push([new Request({ url: url(1) })]), 1);
    // The same URL spelt differently (fragment, default port) is the same request.
    assert.equal(await b.push([new Request({ url: "http://127.0.0.1:9/page/1#top" })]), 0);
    assert.equal(await b.push([new Request({ url: url(1), dontFilter: true })]), 1);
    assert.equal(await b.push([new Request({ url: url(1), method: "POST", body: "x" })]), 1);
    const status = await a.status();
    assert.equal(status.waiting, 3);
    assert.equal(status.seen, 2);
    assert.equal(status.queued, 3);
  } finally {
    await a.close();
    await b.close();
    await redis.stop();
  }
});

Deno.test("the duplicate filter still knows every request after it grows two levels", async () => {
  const redis = await startRedis();
  const key = newKey();
  // A long lease (20 s a call): 280 pushes of 1,000 and the heartbeats between them, on a loaded machine, once went
  // past the default's 2 s a call for a whole lease ("lost the queue: no heartbeat got through for 6 s").
  const { frontier } = await open(redis.url, key, { leaseSeconds: 60 });
  try {
    // Level 0 takes 16,384 fingerprints, level 1 the next 262,144; then level 2 starts. Old ones must still be found.
    const total = 280_000;
    for (let start = 0; start < total; start += 1000) {
      const batch = Array.from({ length: 1000 }, (_, i) => new Request({ url: url(start + i) }));
      assert.equal(await frontier.push(batch), 1000);
    }
    const again = [0, 1, 16_383, 16_384, 200_000, 278_527, 278_528, 279_999].map((n) => new Request({ url: url(n) }));
    assert.equal(await frontier.push(again), 0);
    assert.equal(await frontier.push([new Request({ url: url(total) })]), 1);
    assert.equal((await frontier.status()).seen, total + 1);
    for (const [level, digits] of [[0, 2], [1, 3], [2, 4]]) {
      const keys = await redis.command("KEYS", `${keyPrefix(key)}:seen:${level}:*`) as string[];
      assert.ok(keys.length > 0, `the filter has level ${level}`);
      assert.ok(keys.every((name) => new RegExp(`:seen:${level}:[0-9a-f]{${digits}}$`).test(name)), keys[0]);
    }
    // Level 1's 4,096 buckets hold 64 fingerprints each on average: small hashes, stored as listpacks.
    // (ziplist on Redis 6.2, listpack from 7.0)
    assert.match(
      String(await redis.command("OBJECT", "ENCODING", `${keyPrefix(key)}:seen:1:abc`)),
      /^(listpack|ziplist)$/,
    );
  } finally {
    await frontier.close();
    await redis.stop();
  }
});

Deno.test("finish queues what a page yielded and releases it in one step; the crawl ends once idle", async () => {
  const redis = await startRedis();
  const key = newKey();
  const { frontier } = await open(redis.url, key, { idleSeconds: 0.3 });
  try {
    await frontier.push([new Request({ url: url("start") })]);
    const [start] = await frontier.lease(5);
    assert.equal(await frontier.ended(), false, "a page is held");
    await frontier.finish(start, [new Request({ url: url("a") }), new Request({ url: url("start") })]);
    assert.deepEqual(await frontier.status(), { waiting: 1, held: 0, processes: 1, seen: 2, queued: 2 });
    const [a] = await frontier.lease(5);
    await frontier.finish(a, []);
    // The idle clock starts when a process first finds the crawl idle.
    assert.equal(await frontier.ended(), false);
    let ended = false;
    for (let i = 0; i < 50 && !ended; i++) {
      await sleep(100);
      ended = await frontier.ended();
    }
    assert.equal(ended, true);
  } finally {
    await frontier.close();
    await redis.stop();
  }
});

Deno.test("a lease asked for while pages wait to be finished goes with them and gets the links they queued", async () => {
  const redis = await startRedis();
  const key = newKey();
  const { frontier } = await open(redis.url, key);
  try {
    await frontier.push([new Request({ url: url("a") }), new Request({ url: url("b") })]);
    const [a, b] = await frontier.lease(2);
    await redis.command("CONFIG", "RESETSTAT");
    // a's finish goes at once; b's waits for it, and the lease waits with b's, in the same call, after it.
    const finishA = frontier.finish(a, [new Request({ url: url("a-next") })]);
    const finishB = frontier.finish(b, [new Request({ url: url("b-next") })]);
    const leased = await frontier.lease(5);
    await Promise.all([finishA, finishB]);
    assert.deepEqual(leased.map((lease) => lease.request.url).sort(), [url("a-next"), url("b-next")]);
    const stats = String(await redis.command("INFO", "commandstats"));
    assert.match(stats, /cmdstat_evalsha:calls=2,/, "two finishes and a lease took two calls");
    assert.deepEqual(await frontier.status(), { waiting: 0, held: 2, processes: 1, seen: 4, queued: 4 });
  } finally {
    await frontier.close();
    await redis.stop();
  }
});

Deno.test("a process joining a crawl that has long been idle still waits queue_idle before it ends", async () => {
  const redis = await startRedis();
  const key = newKey();
  // The crawl under this key ended an hour ago: its idle clock has been running since.
  await redis.command("HSET", `${keyPrefix(key)}:meta`, "idle_since", Date.now() - 3_600_000);
  const { frontier } = await open(redis.url, key, { idleSeconds: 0.5 });
  try {
    assert.equal(await frontier.ended(), false, "it ended at once, with no time for start requests");
    let ended = false;
    for (let i = 0; i < 50 && !ended; i++) {
      await sleep(100);
      ended = await frontier.ended();
    }
    assert.equal(ended, true);
  } finally {
    await frontier.close();
    await redis.stop();
  }
});

Deno.test("with queueIdle null a frontier never says the crawl ended", async () => {
  const redis = await startRedis();
  const { frontier } = await open(redis.url, newKey(), { idleSeconds: null });
  try {
    for (let i = 0; i < 3; i++) {
      assert.equal(await frontier.ended(), false);
      await sleep(100);
    }
  } finally {
    await frontier.close();
    await redis.stop();
  }
});

Deno.test("requests given back, or left by a process that closes, go to the front of the queue", async () => {
  const redis = await startRedis();
  const key = newKey();
  const { frontier: a } = await open(redis.url, key);
  const { frontier: b } = await open(redis.url, key);
  try {
    await a.push([1, 2, 3, 4].map((n) => new Request({ url: url(n) })));
    const taken = await a.lease(3);
    await a.giveBack([taken[0]]);
    await a.close();
    assert.deepEqual((await b.lease(10)).map((lease) => lease.request.url).sort(), [1, 2, 3, 4].map(url));
    assert.equal((await b.status()).processes, 1);
  } finally {
    await a.close();
    await b.close();
    await redis.stop();
  }
});

Deno.test("what a silent process held goes back to the queue at another's heartbeat, counted as leases_reclaimed", async () => {
  const redis = await startRedis();
  const key = newKey();
  const prefix = keyPrefix(key);
  const { frontier, log } = await open(redis.url, key, { leaseSeconds: 1.5 });
  try {
    // A process that died holding two requests: its last heartbeat was long ago. What it held is written before it
    // is listed: this process beats meanwhile, and a beat between the two would forget a listed ghost that held
    // nothing yet, leaving the entries written after it to no one.
    const spider = new Books();
    await redis.command(
      "HSET",
      `${prefix}:held:ghost`,
      "101",
      heldEntry(0, "127.0.0.1", encodeRequest(spider, new Request({ url: url("held-1") }))),
      "102",
      heldEntry(
        3,
        "127.0.0.1",
        encodeRequest(spider, new Request({ url: url("held-2"), priority: 3, callback: "parseBook" })),
      ),
    );
    await redis.command("ZADD", `${prefix}:procs`, 1, "ghost");
    let leases: Awaited<ReturnType<typeof frontier.lease>> = [];
    for (let i = 0; i < 40 && leases.length < 2; i++) {
      await sleep(100);
      leases = [...leases, ...await frontier.lease(10)];
    }
    assert.deepEqual(leases.map((lease) => lease.request.url), [url("held-2"), url("held-1")]);
    assert.equal(leases[0].request.callback, "parseBook");
    assert.equal(frontier.stats().leases_reclaimed, 2);
    assert.equal(await redis.command("EXISTS", `${prefix}:held:ghost`), 0);
    assert.equal(await redis.command("ZSCORE", `${prefix}:procs`, "ghost"), null);
    assert.ok(log.lines.some((line) => /took back 2 requests/.test(line)), log.lines.join("\n"));
  } finally {
    await frontier.close();
    await redis.stop();
  }
});

Deno.test("requests a lease took whose answer never came are given back at the next heartbeat", async () => {
  const redis = await startRedis();
  const key = newKey();
  // A lease of 3 s: no answer is awaited longer than 1 s.
  const { frontier } = await open(redis.url, key, { leaseSeconds: 3 });
  try {
    await frontier.push([1, 2, 3, 4, 5].map((n) => new Request({ url: url(n) })));
    await redis.pause();
    const leasing = frontier.lease(2);
    // Longer than the 1 s the client waits: the first LEASE times out, and Redis runs it once it is resumed.
    await sleep(1500);
    await redis.resume();
    const leases = await leasing;
    assert.equal(leases.length, 2);
    let status = await frontier.status();
    for (let i = 0; i < 40 && status.held !== 2; i++) {
      await sleep(100);
      status = await frontier.status();
    }
    assert.equal(status.held, 2, "only the two requests this process knows of stay held");
    assert.equal(status.waiting, 3);
    for (const lease of leases) await frontier.finish(lease, []);
    assert.equal((await frontier.lease(10)).length, 3);
  } finally {
    await frontier.close();
    await redis.stop();
  }
});

Deno.test("entries in the queue that are not usable requests are dropped, counted in queue_bad, and the rest go on", async () => {
  const redis = await startRedis();
  const key = newKey();
  const { frontier, log } = await open(redis.url, key);
  try {
    const entry = (fields: Record<string, unknown>) => JSON.stringify({ v: 1, url: url("x"), ...fields });
    const garbage = [
      "not json at all",
      "[1,2,3]",
      JSON.stringify({ v: 99, url: url("future") }),
      JSON.stringify({ v: 1, url: "file:///etc/passwd" }),
      entry({ callback: "closed" }),
      entry({ callback: "constructor" }),
      entry({ callback: "__proto__" }),
      entry({ callback: "__init__" }),
      entry({ errback: "crawl" }),
      entry({ callback: "noSuchMethod" }),
      entry({ steps: [{ call: "closed" }] }),
      entry({ steps: [{ action: "call", method: "__defineGetter__" }] }),
      entry({ headers: { "x-a": "1\r\nInjected: yes" } }),
      entry({ extra: "field" }),
    ];
    await frontier.push([new Request({ url: url("good-1") })]);
    await pushRaw(redis, key, 0, "127.0.0.1", ...garbage);
    await frontier.push([new Request({ url: url("good-2"), callback: "parseBook" })]);
    const leases = await frontier.lease(100);
    assert.deepEqual(leases.map((lease) => lease.request.url), [url("good-1"), url("good-2")]);
    assert.equal(frontier.stats().queue_bad, garbage.length);
    // Taken from the queue: the two requests and every entry dropped as bad.
    assert.equal(frontier.stats().leased, 2 + garbage.length);
    // The first few one line each, the rest only counted.
    assert.equal(
      log.lines.filter((line) => line.startsWith("warning dropped from the queue")).length,
      BAD_ENTRIES_SHOWN,
    );
    // Dropped for good: nothing of them is waiting or held.
    assert.deepEqual(await frontier.status(), { waiting: 0, held: 2, processes: 1, seen: 2, queued: 2 });
  } finally {
    await frontier.close();
    await redis.stop();
  }
});

Deno.test("queue keys that are not lists are set aside and each counted, and leasing goes on", async () => {
  const redis = await startRedis();
  const key = newKey();
  const prefix = keyPrefix(key);
  const { frontier } = await open(redis.url, key);
  try {
    await frontier.push([new Request({ url: url(1) })]);
    // A host's list that is a string, one that is a hash, a priority's host list that is a string, and a priority
    // that is not a number (its requests could not be put back where they came from).
    await pushRaw(redis, key, 7, "a.example", "x");
    await redis.command("DEL", hostList(key, 7, "a.example"));
    await redis.command("SET", hostList(key, 7, "a.example"), "garbage");
    await pushRaw(redis, key, 6, "b.example", "x");
    await redis.command("DEL", hostList(key, 6, "b.example"));
    await redis.command("HSET", hostList(key, 6, "b.example"), "not", "a list");
    await redis.command("SET", `${prefix}:hosts:5`, "garbage");
    await redis.command("ZADD", `${prefix}:prios`, 5, "5");
    await pushRaw(redis, key, "not-a-number", "c.example", JSON.stringify({ v: 1, url: url("c") }));
    await redis.command("ZADD", `${prefix}:prios`, 8, "not-a-number");
    const leases = await frontier.lease(10);
    assert.deepEqual(leases.map((lease) => lease.request.url), [url(1)]);
    assert.equal(frontier.stats().queue_bad, 4);
    assert.equal(await redis.command("GET", `${prefix}:bad:q:7:a.example`), "garbage");
    assert.equal(await redis.command("TYPE", `${prefix}:bad:q:6:b.example`), "hash");
    assert.equal(await redis.command("GET", `${prefix}:bad:hosts:5`), "garbage");
    assert.equal(await redis.command("TYPE", `${prefix}:bad:hosts:not-a-number`), "list");
  } finally {
    await frontier.close();
    await redis.stop();
  }
});

Deno.test("a request's own login travels with it in the queue", async () => {
  const redis = await startRedis();
  const key = newKey();
  const { frontier } = await open(redis.url, key);
  try {
    await frontier.push([new Request({ url: url("own"), auth: { user: "me", password: "own-secret" } })]);
    const stored = await waitingEntries(redis, key);
    assert.equal(stored.length, 1);
    assert.deepEqual(JSON.parse(stored[0]).auth, { user: "me", password: "own-secret" });
    const [lease] = await frontier.lease(1);
    assert.deepEqual(lease.request.auth, { user: "me", password: "own-secret" });
  } finally {
    await frontier.close();
    await redis.stop();
  }
});

Deno.test("a yielded request that cannot travel is dropped with an error, and the page still finishes", async () => {
  const redis = await startRedis();
  const { frontier, log } = await open(redis.url, newKey());
  try {
    await frontier.push([new Request({ url: url("start") })]);
    const [start] = await frontier.lease(5);
    const arrow = () => undefined; // not a method of the spider: cannot be named in the queue
    await frontier.finish(start, [
      new Request({ url: url("bad"), callback: arrow }),
      new Request({ url: url("good") }),
    ]);
    const status = await frontier.status();
    assert.equal(status.held, 0, "the page is finished");
    assert.equal(status.waiting, 1, "the good link is queued");
    assert.equal(frontier.stats()["dropped.unqueueable"], 1);
    assert.ok(log.lines.some((line) => line.startsWith(`error cannot queue ${url("bad")}`)), log.lines.join("\n"));
  } finally {
    await frontier.close();
    await redis.stop();
  }
});

Deno.test("a process whose Redis lost its data says so in one line, and queues nothing for the pages it held", async () => {
  const redis = await startRedis();
  const key = newKey();
  const { frontier, log } = await open(redis.url, key);
  try {
    await frontier.push([new Request({ url: url("start") })]);
    const [start] = await frontier.lease(5);
    await redis.command("FLUSHALL");
    await frontier.finish(start, [new Request({ url: url("next") })]);
    const said = log.lines.filter((line) => /Redis has lost the crawl's data/.test(line));
    assert.equal(said.length, 1, log.lines.join("\n"));
    assert.equal((await frontier.status()).waiting, 0);
  } finally {
    await frontier.close();
    await redis.stop();
  }
});

Deno.test("a lease takes hosts in turn within a priority and passes over the hosts the crawl has enough of", async () => {
  const redis = await startRedis();
  const { frontier } = await open(redis.url, newKey());
  try {
    const on = (host: string, n: number, priority = 0) => new Request({ url: `http://${host}:9/${n}`, priority });
    await frontier.push([1, 2, 3, 4, 5].map((n) => on("a.test", n)));
    await frontier.push([1, 2, 3].map((n) => on("b.test", n)));
    await frontier.push([on("c.test", 1, 5)]);
    // The highest priority first; then a fair share from each host, oldest first within a host.
    const first = await frontier.lease(4);
    assert.deepEqual(first.map((lease) => lease.request.url), [
      "http://c.test:9/1",
      "http://a.test:9/1",
      "http://a.test:9/2",
      "http://b.test:9/1",
    ]);
    // This process has enough of a.test: the lease reaches b.test behind it, leaving a.test's requests in place.
    const skipA = { skipHost: (host: string) => host === "a.test" };
    const second = await frontier.lease(10, skipA);
    assert.deepEqual(second.map((lease) => lease.request.url), ["http://b.test:9/2", "http://b.test:9/3"]);
    assert.deepEqual(await frontier.lease(10, skipA), []);
    // Hosts it holds nothing of are never passed over, whatever skipHost says of them.
    await frontier.giveBack(first.filter((lease) => lease.request.host === "a.test"));
    const rest = await frontier.lease(10, { skipHost: () => true });
    assert.deepEqual(rest.map((lease) => lease.request.url), [1, 2, 3, 4, 5].map((n) => `http://a.test:9/${n}`));
  } finally {
    await frontier.close();
    await redis.stop();
  }
});

Deno.test("junk in the queue costs one decode each: a lease reaches the request behind 20,000 of them", async () => {
  const redis = await startRedis();
  const key = newKey();
  const { frontier, log } = await open(redis.url, key);
  try {
    const junk = Array.from({ length: 20_000 }, (_, i) => `junk ${i}`);
    for (let i = 0; i < junk.length; i += 1000) await pushRaw(redis, key, 0, "127.0.0.1", ...junk.slice(i, i + 1000));
    await frontier.push([new Request({ url: url("behind-the-junk") })]);
    // One lease: junk is not an empty queue, so it does not come back empty-handed while a request waits.
    const leases = await frontier.lease(16);
    assert.deepEqual(leases.map((lease) => lease.request.url), [url("behind-the-junk")]);
    assert.equal(frontier.stats().queue_bad, junk.length);
    assert.deepEqual(await frontier.status(), { waiting: 0, held: 1, processes: 1, seen: 1, queued: 1 });
    await frontier.close();
    // The first few one line each; the rest counted, in a line at each heartbeat that had some and one at the end.
    const warnings = log.lines.filter((line) => line.startsWith("warning dropped"));
    assert.equal(
      warnings.filter((line) => line.startsWith("warning dropped from the queue")).length,
      BAD_ENTRIES_SHOWN,
    );
    const counted = warnings.map((line) => /dropped (\d+) more entries from the queue/.exec(line)?.[1]).filter(Boolean);
    assert.ok(counted.length >= 1 && counted.length < 10, warnings.join("\n"));
    assert.equal(counted.reduce((sum, n) => sum + Number(n), 0), junk.length - BAD_ENTRIES_SHOWN);
  } finally {
    await frontier.close();
    await redis.stop();
  }
});

Deno.test("entries over the size, depth or header bounds are dropped as bad, the big ones without being read", async () => {
  const redis = await startRedis();
  const key = newKey();
  const { frontier, log } = await open(redis.url, key, {
    limits: { maxBytes: 64 * 1024, maxDepth: 16, maxHeaders: 8 },
  });
  try {
    const entry = (fields: Record<string, unknown>) => JSON.stringify({ v: 1, url: url("x"), ...fields });
    const headers = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`x-h${i}`, "1"]));
    await pushRaw(
      redis,
      key,
      0,
      "127.0.0.1",
      entry({ body: "x".repeat(10 * 1024 * 1024) }),
      entry({ meta: { big: "é".repeat(40 * 1024) } }), // 80 KB in UTF-8, 40 K characters
      // A million brackets deep (2 MB), written by hand: JSON.stringify would overflow the stack.
      `{"v":1,"url":${JSON.stringify(url("x"))},"meta":{"a":${"[".repeat(1_000_000)}${"]".repeat(1_000_000)}}}`,
      entry({ meta: { a: JSON.parse("[".repeat(17) + "]".repeat(17)) } }),
      entry({ headers }),
    );
    await frontier.push([new Request({ url: url("fine"), meta: { a: [[[1]]] } })]);
    const leases = await frontier.lease(16);
    assert.deepEqual(leases.map((lease) => lease.request.url), [url("fine")]);
    assert.equal(frontier.stats().queue_bad, 5);
    assert.ok(log.lines.some((line) => /3 entries over 65536 bytes/.test(line)), log.lines.join("\n"));
    // A request over the bounds is not written either: another process would only drop it.
    await frontier.push([
      new Request({ url: url("too-big"), body: "x".repeat(70 * 1024), method: "POST" }),
      new Request({ url: url("too-deep"), meta: { a: JSON.parse("[".repeat(20) + "]".repeat(20)) } }),
      new Request({ url: url("too-many-headers"), headers }),
    ]);
    assert.equal(frontier.stats()["dropped.unqueueable"], 3);
    assert.equal((await frontier.status()).waiting, 0);
  } finally {
    await frontier.close();
    await redis.stop();
  }
});

Deno.test("an entry whose URL is not valid UTF-8 is dropped as bad, not fetched with replacement characters", async () => {
  const redis = await startRedis();
  const key = newKey();
  const { frontier } = await open(redis.url, key);
  try {
    await pushRaw(redis, key, 0, "127.0.0.1", JSON.stringify({ v: 1, url: url("first") }));
    // Bytes 0xff 0xfe in the path, written as raw bytes by a script (a JSON string cannot hold them).
    await redis.command(
      "EVAL",
      `redis.call('RPUSH', KEYS[1], '{"v":1,"url":"http://127.0.0.1:9/page/\\255\\254"}')`,
      1,
      hostList(key, 0, "127.0.0.1"),
    );
    const leases = await frontier.lease(10);
    assert.deepEqual(leases.map((lease) => lease.request.url), [url("first")]);
    assert.equal(frontier.stats().queue_bad, 1);
  } finally {
    await frontier.close();
    await redis.stop();
  }
});

Deno.test("with crawl-wide politeness, min_delay and a Crawl-delay one process found hold for every process", async () => {
  const redis = await startRedis();
  const key = newKey();
  const polite = async () => (await open(redis.url, key, { politeness: { perDomain: 8, minDelay: 0.5 } })).frontier;
  const a = await polite();
  const b = await polite();
  try {
    const on = (host: string, n: number) => new Request({ url: `http://${host}:9/${n}` });
    await a.push([on("slow.test", 1), on("fast.test", 1)]);
    assert.equal((await a.lease(10)).length, 2);
    // Each host's next request is half a second away, for every process.
    await a.push([on("slow.test", 2), on("fast.test", 2), on("fast.test", 3)]);
    assert.deepEqual(await b.lease(10), [], "not due yet, for the other process either");
    // a has found a Crawl-delay of 30 s for slow.test: it tells the crawl with its next lease, and the crawl waits
    // that long from slow.test's last start.
    assert.deepEqual(await a.lease(10, { crawlDelay: (host) => host === "slow.test" ? 30 : 0 }), []);
    let later: Awaited<ReturnType<typeof b.lease>> = [];
    for (let i = 0; i < 50 && later.length === 0; i++) {
      await sleep(100);
      later = await b.lease(10);
    }
    // Both of fast.test's, taken together (the process that takes them starts them half a second apart); none of
    // slow.test's, which waits 30 s from its last start.
    assert.deepEqual(later.map((lease) => lease.request.url), ["http://fast.test:9/2", "http://fast.test:9/3"]);
    await sleep(600);
    assert.deepEqual(await b.lease(10), []);
    assert.equal(await redis.command("HGET", `${keyPrefix(key)}:delay`, "slow.test"), "30000");
  } finally {
    await a.close();
    await b.close();
    await redis.stop();
  }
});

Deno.test("links a process has pushed or leased before are not sent to Redis again; other processes' are", async () => {
  const redis = await startRedis();
  const key = newKey();
  const { frontier: a } = await open(redis.url, key);
  const { frontier: b } = await open(redis.url, key);
  try {
    const links = Array.from({ length: 100 }, (_, i) => new Request({ url: url(`link-${i}`) }));
    await a.push([new Request({ url: url("start") }), ...links]);
    const hsets = async () => {
      const info = String(await redis.command("INFO", "commandstats"));
      return Number(/cmdstat_hset:calls=(\d+)/.exec(info)?.[1] ?? 0);
    };
    const [page] = await a.lease(1);
    const before = await hsets();
    // a pushed all hundred: finishing a page that links to them again asks the filter about none of them.
    await a.finish(page, links);
    // One HSET: the held entry of the lease that follows, nothing for the links.
    await a.lease(1);
    assert.equal(await hsets() - before, 1);
    // b has only seen the one it leased (link-1): it asks about the other 99 and the new one, and Redis's filter
    // still leaves the 99 out.
    const [other] = await b.lease(1);
    assert.equal(other.request.url, url("link-1"));
    const beforeB = await hsets();
    await b.finish(other, [...links, new Request({ url: url("new") })]);
    assert.equal(await hsets() - beforeB, 100);
    assert.equal((await b.status()).seen, 102);
    // A dontFilter request always goes.
    assert.equal(await a.push([new Request({ url: url("link-1"), dontFilter: true })]), 1);
  } finally {
    await a.close();
    await b.close();
    await redis.stop();
  }
});

Deno.test("a host this process already holds per_domain requests of is taken from last, and still taken when alone", async () => {
  const redis = await startRedis();
  const key = newKey();
  const { frontier } = await open(redis.url, key, { perDomain: 2 });
  try {
    const on = (host: string, n: number) => new Request({ url: `http://${host}:9/${n}` });
    await frontier.push([1, 2, 3, 4].map((n) => on("slow.test", n)));
    assert.deepEqual((await frontier.lease(2)).map((lease) => lease.request.url), [
      on("slow.test", 1).url,
      on("slow.test", 2).url,
    ]);
    // Two of slow.test held: fast.test's requests, queued after the rest of slow.test's, go first.
    await frontier.push([on("fast.test", 1), on("fast.test", 2)]);
    assert.deepEqual((await frontier.lease(3)).map((lease) => lease.request.url), [
      on("fast.test", 1).url,
      on("fast.test", 2).url,
      on("slow.test", 3).url,
    ]);
    // Nothing else waiting: slow.test is taken from although this process has its share of it.
    assert.deepEqual((await frontier.lease(3)).map((lease) => lease.request.url), [on("slow.test", 4).url]);
  } finally {
    await frontier.close();
    await redis.stop();
  }
});

Deno.test("a lease crossing junk takes bigger bites, and gives back what it took beyond max, in order", async () => {
  const redis = await startRedis();
  const key = newKey();
  const { frontier } = await open(redis.url, key);
  try {
    await pushRaw(redis, key, 0, "127.0.0.1", ...Array.from({ length: 200 }, (_, i) => `junk ${i}`));
    const good = Array.from({ length: 300 }, (_, i) => url(`good-${i}`));
    await pushRaw(redis, key, 0, "127.0.0.1", ...good.map((each) => JSON.stringify({ v: 1, url: each })));
    const first = await frontier.lease(16);
    assert.deepEqual(first.map((lease) => lease.request.url), good.slice(0, 16));
    assert.deepEqual(await frontier.status(), { waiting: 284, held: 16, processes: 1, seen: 0, queued: 0 });
    assert.equal(frontier.stats().leased, 216, "the junk and the sixteen");
    assert.deepEqual((await frontier.lease(1000)).map((lease) => lease.request.url), good.slice(16));
  } finally {
    await frontier.close();
    await redis.stop();
  }
});
