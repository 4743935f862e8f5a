/**
 * Queue.push with whole requests, against a real redis-server: what goes in is what a crawl's frontier leases back
 * (method, body, headers, meta, cbKwargs, callback), deduplicated as the crawl deduplicates, and a request a crawl
 * would not take (a reserved callback, an upload outside the upload directory, a bad header...) is refused before
 * it reaches Redis. About 2 s (a redis-server per test).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../../src/log.ts";
import { type BadPush, Queue } from "../../src/queue/queue.ts";
import { RedisFrontier } from "../../src/queue/redis_frontier.ts";
import type { PushedRequest } from "../../src/queue/pushed_request.ts";
import type { Page } from "../../src/spider/page.ts";
import { Spider } from "../../src/spider/spider.ts";
import { type RedisServer, startRedis } from "../helpers/redis.ts";

class Search extends Spider {
  override parse(page: Page) {
    return { url: page.url };
  }
  parseResults(page: Page) {
    return { results: page.url };
  }
}

const quiet = createLogger("error", () => {});

async function withQueue(body: (queue: Queue, redis: RedisServer) => Promise<void>): Promise<void> {
  const redis = await startRedis();
  const queue = new Queue(redis.url, "Search");
  try {
    await body(queue, redis);
  } finally {
    await queue.close();
    await redis.stop();
  }
}

async function leaseAll(redis: RedisServer) {
  const frontier = await RedisFrontier.open({
    url: redis.url,
    key: "Search",
    spider: new Search(),
    log: quiet,
    leaseSeconds: 60,
    idleSeconds: null,
  });
  try {
    return (await frontier.lease(100)).map((lease) => lease.request);
  } finally {
    await frontier.close();
  }
}

const search = "http://127.0.0.1:8000/search";

Deno.test("a pushed POST request comes out of the crawl's frontier with its body, headers, meta, cbKwargs and callback", async () => {
  await withQueue(async (queue, redis) => {
    const pushed: PushedRequest = {
      url: search,
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "q=books",
      callback: "parseResults",
      meta: { page: 1, tags: ["a", "b"] },
      cbKwargs: { shelf: "new" },
      priority: 7,
    };
    assert.deepEqual(await queue.push([pushed], { spider: new Search() }), { pushed: 1, skipped: 0 });
    const [request, ...rest] = await leaseAll(redis);
    assert.deepEqual(rest, []);
    assert.equal(request.url, search);
    assert.equal(request.method, "POST");
    assert.equal(request.body, "q=books");
    assert.equal(request.headers["content-type"], "application/x-www-form-urlencoded");
    assert.equal(request.callback, "parseResults");
    assert.deepEqual(request.meta, { page: 1, tags: ["a", "b"] });
    assert.deepEqual(request.cbKwargs, { shelf: "new" });
    assert.equal(request.priority, 7);
    assert.equal(request.depth, 0);
  });
});

Deno.test("pushed requests are deduplicated by method, URL and body, as the crawl's own are", async () => {
  await withQueue(async (queue) => {
    const post = (body: string): PushedRequest => ({ url: search, method: "POST", body });
    const first = await queue.push([post("q=a"), post("q=b"), post("q=a"), search]);
    assert.deepEqual(first, { pushed: 3, skipped: 1 });
    // A request's own dontFilter wins over the push's, and the push's applies to requests that leave it out.
    assert.deepEqual(await queue.push([{ ...post("q=a"), dontFilter: true }, post("q=b")]), { pushed: 1, skipped: 1 });
    assert.deepEqual(await queue.push([post("q=b")], { dontFilter: true }), { pushed: 1, skipped: 0 });
    assert.deepEqual(await queue.status(), { waiting: 5, held: 0, processes: 0, seen: 3, queued: 5 });
  });
});

Deno.test("a request a crawl would not take is a TypeError naming its place, and nothing of its batch is sent", async () => {
  await withQueue(async (queue) => {
    await assert.rejects(
      queue.push([search, { url: search, callback: "closed" }]),
      (error: Error) => error instanceof TypeError && /^request 2: callback "closed" is reserved/.test(error.message),
    );
    assert.equal((await queue.status()).queued, 0);
  });
});

Deno.test("with onBad, each bad request is reported with its reason and left out, and the rest are pushed", async () => {
  const dir = await mkdtemp(join(tmpdir(), "netweir-push-"));
  try {
    const uploads = join(dir, "uploads");
    await Deno.mkdir(uploads);
    await writeFile(join(uploads, "cv.pdf"), "pdf");
    await writeFile(join(dir, "secret.txt"), "secret");
    const upload = (file: string): PushedRequest => ({
      url: `${search}?upload=${encodeURIComponent(file)}`,
      steps: [{ set_input_files: { selector: "#file", files: file } }],
    });
    const bad: BadPush[] = [];
    const entries: unknown[] = [
      { url: search, callback: "parseResults" }, // 1: fine without the spider's code
      { url: search, callback: "__proto__" }, // 2: reserved for every spider
      { url: "ftp://127.0.0.1/file" }, // 3
      { url: `${search}?h`, headers: { "bad header": "x" } }, // 4
      { url: `${search}?m`, meta: { when: new Date(0) } }, // 5: not JSON
      { url: `${search}?d`, depth: 3 }, // 6: a pushed request is a start request
      upload("cv.pdf"), // 7: inside the upload directory
      upload("../secret.txt"), // 8
      { url: `${search}?s`, steps: [{ call: "start" }] }, // 9: Spider's own method
      "not a url", // 10
      [search], // 11
      { url: `${search}?x`, method: "GET POST" }, // 12
    ];
    const result = await pushAndLease(entries, { uploadDir: uploads, onBad: (entry) => bad.push(entry) });
    assert.deepEqual(bad.map((entry) => entry.position), [2, 3, 4, 5, 6, 8, 9, 10, 11, 12]);
    assert.deepEqual(result.outcome, { pushed: 2, skipped: 0 });
    const reasons = bad.map((entry) => entry.reason);
    assert.match(reasons[0], /callback "__proto__" is reserved/);
    assert.match(reasons[1], /only http\(s\) requests|http\(s\) URL/);
    assert.match(reasons[2], /headers/);
    assert.match(reasons[3], /meta\.when is not JSON \(Date\)/);
    assert.match(reasons[4], /unknown field "depth"/);
    assert.match(reasons[5], /outside browser_upload_dir/);
    assert.match(reasons[6], /call: callback "start" is reserved/);
    assert.match(reasons[7], /not an http\(s\) URL/);
    assert.match(reasons[8], /must be a JSON object/);
    assert.match(reasons[9], /method/);
    assert.deepEqual(result.leased.map((request) => request.url), [search, `${search}?upload=cv.pdf`]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("given the spider, a callback must be one of its methods; without an upload directory nothing uploads", async () => {
  const bad: BadPush[] = [];
  const entries: PushedRequest[] = [
    { url: search, callback: "parseResults" },
    { url: `${search}?2`, callback: "parseBooks" },
    { url: `${search}?3`, steps: [{ set_input_files: { selector: "#f", files: "cv.pdf" } }] },
  ];
  const result = await pushAndLease(entries, { spider: new Search(), onBad: (entry) => bad.push(entry) });
  assert.deepEqual(result.outcome, { pushed: 1, skipped: 0 });
  assert.deepEqual(bad.map((entry) => entry.position), [2, 3]);
  assert.match(bad[0].reason, /callback "parseBooks" is not a method of the spider \(Search\)/);
  assert.match(bad[1].reason, /set_input_files needs browser_upload_dir/);
});

/** Pushes `entries` into a fresh crawl and leases back what went in. */
async function pushAndLease(entries: unknown[], options: Parameters<Queue["push"]>[1]) {
  let outcome;
  let leased;
  await withQueue(async (queue, redis) => {
    outcome = await queue.push(entries as PushedRequest[], options);
    leased = await leaseAll(redis);
  });
  return { outcome: outcome!, leased: leased! as Awaited<ReturnType<typeof leaseAll>> };
}
