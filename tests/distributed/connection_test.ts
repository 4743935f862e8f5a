/**
 * `netweir crawl --queue URL` and the server at URL: one that is too old is refused, a unix socket works, and a
 * password in the URL is never printed, whether the login works or not.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeRedis } from "../helpers/fake_redis.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startRedis } from "../helpers/redis.ts";
import { bookUrls, readItems, startCrawler } from "./_crawl.ts";

Deno.test("a crawl on a Redis older than 6.2 exits 1 with one line saying so", async () => {
  const fake = await startFakeRedis({ version: "6.0.0" });
  const site = await startFixtureSite({ books: 5 });
  const dir = await mkdtemp(join(tmpdir(), "netweir-old-"));
  try {
    const crawler = startCrawler({ dir, name: "old", site, queue: fake.url });
    const result = await crawler.process.wait();
    assert.equal(result.code, 1);
    assert.equal(result.stderr, `netweir: ${fake.url} runs Redis 6.0; the queue needs 6.2 or later\n`);
    assert.equal(site.requests.length, 0, "nothing fetched");
  } finally {
    await rm(dir, { recursive: true, force: true });
    await site.close();
    await fake.close();
  }
});

Deno.test("a crawl reaches a real redis-server through a redis+unix:// URL", async () => {
  const books = 20;
  const redis = await startRedis({ unixSocket: true });
  const site = await startFixtureSite({ books });
  const dir = await mkdtemp(join(tmpdir(), "netweir-unix-"));
  try {
    const crawler = startCrawler({ dir, name: "unix", site, queue: `redis+unix://${redis.socketPath}?db=2` });
    const result = await crawler.process.wait();
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual((await readItems(crawler.items)).map((item) => item.url).sort(), bookUrls(site, books).sort());
    // Its keys are in database 2, not in database 0 where the TCP helper looks.
    assert.deepEqual(await redis.command("KEYS", "netweir:*"), []);
    assert.equal(
      await redis.command(
        "EVAL",
        "redis.call('SELECT', 2) return redis.call('EXISTS', KEYS[1])",
        1,
        "netweir:{Shop}:meta",
      ),
      1,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
    await site.close();
    await redis.stop();
  }
});

Deno.test("a password in the queue URL is never printed: a wrong one exits 1, the right one crawls", async () => {
  const books = 5;
  const redis = await startRedis();
  const site = await startFixtureSite({ books });
  const dir = await mkdtemp(join(tmpdir(), "netweir-pass-"));
  try {
    await redis.command("CONFIG", "SET", "requirepass", "right-secret");
    const base = `127.0.0.1:${redis.port}/0`;

    const wrong = startCrawler({ dir, name: "wrong", site, queue: `redis://:wrong-secret@${base}` });
    const refused = await wrong.process.wait();
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr.split("\n").length, 2, `one line: ${refused.stderr}`);
    assert.match(
      refused.stderr,
      new RegExp(`^netweir: cannot reach the queue at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${redis.port}/0: `),
    );
    assert.doesNotMatch(refused.stderr + refused.stdout, /wrong-secret|right-secret/);

    const right = startCrawler({ dir, name: "right", site, queue: `redis://:right-secret@${base}` });
    const crawled = await right.process.wait();
    assert.equal(crawled.code, 0, crawled.stderr);
    assert.equal((await readItems(right.items)).length, books);
    assert.doesNotMatch(crawled.stderr + crawled.stdout, /right-secret/);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await site.close();
    await redis.stop();
  }
});

Deno.test("a crawl started while Redis is down waits for it, and crawls once it is up", async () => {
  const books = 5;
  const redis = await startRedis();
  const site = await startFixtureSite({ books });
  const dir = await mkdtemp(join(tmpdir(), "netweir-wait-"));
  try {
    await redis.kill("SIGTERM");
    const crawler = startCrawler({ dir, name: "early", site, queue: redis.url, settings: ["queue_lease=20"] });
    await crawler.process.waitFor(/cannot reach the queue at .*; trying again for up to 20 s/);
    await redis.restart();
    const result = await crawler.process.wait();
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual((await readItems(crawler.items)).map((item) => item.url).sort(), bookUrls(site, books).sort());
  } finally {
    await rm(dir, { recursive: true, force: true });
    await site.close();
    await redis.stop();
  }
});

Deno.test("a crawl whose Redis stays unreachable for a whole lease exits 1 with one line", async () => {
  const redis = await startRedis();
  const site = await startFixtureSite({ books: 5 });
  const dir = await mkdtemp(join(tmpdir(), "netweir-gone-"));
  try {
    await redis.kill("SIGTERM");
    const queue = `redis://:the-secret@127.0.0.1:${redis.port}/0`;
    const crawler = startCrawler({ dir, name: "gone", site, queue, settings: ["queue_lease=2", "log_level=error"] });
    const result = await crawler.process.wait();
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /^netweir: cannot reach the queue at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\/0: .*\(tried for 2 s\)\n$/,
    );
    assert.doesNotMatch(result.stderr, /the-secret/);
    assert.equal(site.requests.length, 0, "nothing fetched");
  } finally {
    await rm(dir, { recursive: true, force: true });
    await site.close();
    await redis.stop();
  }
});

Deno.test("a password given to a Redis that needs none is mentioned once in the log, and the crawl goes on", async () => {
  const books = 5;
  const redis = await startRedis();
  const site = await startFixtureSite({ books });
  const dir = await mkdtemp(join(tmpdir(), "netweir-nopass-"));
  try {
    const queue = `redis://:unneeded-secret@127.0.0.1:${redis.port}/0`;
    const crawler = startCrawler({ dir, name: "nopass", site, queue, settings: ["log_level=warning"] });
    const result = await crawler.process.wait();
    assert.equal(result.code, 0, result.stderr);
    assert.equal((await readItems(crawler.items)).length, books);
    assert.doesNotMatch(result.stderr, /\[WARN\]|unneeded-secret/, "the Redis client's own line got through");
    assert.equal(result.stderr.match(/needs no password; the one given is not used/g)?.length, 1, result.stderr);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await site.close();
    await redis.stop();
  }
});
