import assert from "node:assert/strict";
import { QueueError, UsageError } from "../../src/errors.ts";
import { FeedSet, parseFeedTarget } from "../../src/output/feeds.ts";
import { RedisStreamFeed } from "../../src/output/redis_stream_feed.ts";
import { startRedis } from "../helpers/redis.ts";
import { sleep } from "../helpers/wait.ts";
import { streamItems } from "../distributed/_stream.ts";

Deno.test("a Redis output names its stream, or is refused in one line with the password masked", () => {
  assert.deepEqual(parseFeedTarget("redis://127.0.0.1:6379/2?stream=shop:items", true), {
    path: "redis://127.0.0.1:6379/2?stream=shop:items",
    format: "jsonl",
    overwrite: false,
  });
  assert.throws(
    () => parseFeedTarget("redis://:hunter2@127.0.0.1:6379/0", false),
    (error: unknown) =>
      error instanceof UsageError && error.message === "output redis://:***@127.0.0.1:6379/0 names no stream; " +
          "add ?stream=KEY (the stream's Redis key)",
  );
  assert.throws(
    () => parseFeedTarget("redis://:hunter2@127.0.0.1:6379/x?stream=s", false),
    (error: unknown) =>
      error instanceof UsageError && /database must be a number/.test(error.message) &&
      !error.message.includes("hunter2"),
  );
});

Deno.test("a page's items are in the stream when the feed's write resolves, and the feeds' closing line masks the password", async () => {
  const redis = await startRedis();
  try {
    await redis.command("CONFIG", "SET", "requirepass", "s3cret");
    const url = redis.url.replace("redis://", "redis://:s3cret@") + "?stream=items";
    const lines: string[] = [];
    const log = { debug() {}, info: (line: string) => lines.push(line), warning() {}, error() {} };
    const feeds = await FeedSet.open([parseFeedTarget(url, false)], log);
    await feeds.write([{ n: 1 }, { n: 2 }]);
    await feeds.write([{ n: 3 }]);
    const { Redis } = await import("ioredis");
    const client = new Redis(url.replace(/\?.*/, ""));
    assert.equal(await client.xlen("items"), 3, "every item is in when write resolves");
    client.disconnect();
    await feeds.close();
    assert.deepEqual(lines, [
      `Stored jsonl feed (3 items) in: ${redis.url.replace("redis://", "redis://:***@")}?stream=items`,
    ]);
    assert.deepEqual(feeds.paths.filter((path) => path.includes("s3cret")), []);
  } finally {
    await redis.stop();
  }
});

Deno.test("a key that holds something other than a stream is refused before the crawl, naming its type", async () => {
  const redis = await startRedis();
  try {
    await redis.command("SET", "items", "x");
    await assert.rejects(
      RedisStreamFeed.open(`${redis.url}?stream=items`),
      (error: unknown) => error instanceof QueueError && /key items holds a string, not a stream/.test(error.message),
    );
  } finally {
    await redis.stop();
  }
});

Deno.test("a page written while Redis is down goes in once it is back", async () => {
  const redis = await startRedis({ appendonly: true });
  try {
    const feed = await RedisStreamFeed.open(`${redis.url}?stream=items`);
    await feed.write([{ n: 0 }]);
    await redis.kill("SIGKILL");
    const written = feed.write([{ n: 1 }, { n: 2 }]);
    await sleep(1_000);
    await redis.restart();
    await written;
    assert.deepEqual(await streamItems(redis, "items"), [{ n: 0 }, { n: 1 }, { n: 2 }]);
    await feed.close();
    assert.deepEqual(await redis.command("KEYS", "items:writes:*"), [], "the record of writes goes at close");
  } finally {
    await redis.stop();
  }
});

Deno.test("a write tried again after its answer was lost adds its items once", async () => {
  const redis = await startRedis();
  try {
    const feed = await RedisStreamFeed.open(`${redis.url}?stream=items`);
    // Frozen, Redis answers nothing: the write's call times out (5 s) and is sent again, while the first call still
    // waits in the server's socket. Both run once it thaws; the second must find the first's mark.
    await redis.pause();
    const written = feed.write([{ n: 1 }, { n: 2 }]);
    await sleep(6_500);
    await redis.resume();
    await written;
    assert.deepEqual(await streamItems(redis, "items"), [{ n: 1 }, { n: 2 }]);
    await feed.close();
  } finally {
    await redis.stop();
  }
});
