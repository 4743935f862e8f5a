/**
 * Keys of the wrong type and held entries that cannot go back, written into a crawl's Redis keys by hand (as
 * another program or someone at redis-cli might), against a real redis-server: each is set aside or dropped and
 * counted in queue_bad, no script stops halfway, and no process stops.
 */
import assert from "node:assert/strict";
import { encodeRequest } from "../../src/queue/codec.ts";
import { keyPrefix } from "../../src/queue/redis_frontier.ts";
import { Request } from "../../src/spider/request.ts";
import { startRedis } from "../helpers/redis.ts";
import { heldEntry } from "./_layout.ts";
import { Books, newKey, openFrontier } from "./_frontier.ts";

const url = (n: number | string) => `http://127.0.0.1:9/page/${n}`;

Deno.test("a duplicate-filter bucket of the wrong type is set aside and counted; the page's links are queued", async () => {
  const redis = await startRedis();
  const key = newKey();
  const prefix = keyPrefix(key);
  const { frontier } = await openFrontier(redis.url, key);
  try {
    await frontier.push([new Request({ url: url("start") })]);
    const [start] = await frontier.lease(1);
    // Every bucket of the filter's first level is a string: whatever the links' fingerprints, theirs is one.
    for (let b = 0; b < 256; b++) {
      await redis.command("SET", `${prefix}:seen:0:${b.toString(16).padStart(2, "0")}`, "x");
    }
    const links = [1, 2, 3, 4, 5].map((n) => new Request({ url: url(`link-${n}`) }));
    await frontier.finish(start, links);
    const leased = await frontier.lease(10);
    assert.deepEqual(leased.map((lease) => lease.request.url).sort(), links.map((link) => link.url));
    assert.ok(Number(frontier.stats().queue_bad) >= 1, JSON.stringify(frontier.stats()));
    // The links are in the filter now: found again, they are left out.
    for (const lease of leased) await frontier.finish(lease, []);
    assert.equal(await frontier.push(links.map((link) => new Request({ url: link.url }))), 0);
  } finally {
    await frontier.close();
    await redis.stop();
  }
});

Deno.test("a string where a dead process's held entries should be is set aside and counted; processes start and go on", async () => {
  const redis = await startRedis();
  const key = newKey();
  const prefix = keyPrefix(key);
  await redis.command("ZADD", `${prefix}:procs`, 0, "ghost");
  await redis.command("SET", `${prefix}:held:ghost`, "x");
  const { frontier } = await openFrontier(redis.url, key);
  try {
    assert.equal(frontier.stats().queue_bad, 1);
    await frontier.push([new Request({ url: url("one") })]);
    const [one] = await frontier.lease(1);
    await frontier.finish(one, []);
    assert.equal(await redis.command("ZSCORE", `${prefix}:procs`, "ghost"), null);
    assert.equal(await redis.command("TYPE", `${prefix}:bad:held:ghost`), "string");
    assert.equal(await frontier.ended(), false);
  } finally {
    await frontier.close();
    await redis.stop();
  }
});

Deno.test("a dead process's held entry whose priority is nan is dropped and counted once; the others go back", async () => {
  const redis = await startRedis();
  const key = newKey();
  const prefix = keyPrefix(key);
  const spider = new Books();
  await redis.command("ZADD", `${prefix}:procs`, 0, "ghost");
  await redis.command(
    "HSET",
    `${prefix}:held:ghost`,
    "1",
    `nan\n127.0.0.1\n${encodeRequest(spider, new Request({ url: url("nan") }))}`,
    "2",
    heldEntry(0, "127.0.0.1", encodeRequest(spider, new Request({ url: url("fine") }))),
  );
  const { frontier } = await openFrontier(redis.url, key, { leaseSeconds: 1.5 });
  try {
    assert.equal(frontier.stats().queue_bad, 1);
    assert.equal(frontier.stats().leases_reclaimed, 1);
    const leased = await frontier.lease(10);
    assert.deepEqual(leased.map((lease) => lease.request.url), [url("fine")]);
    assert.deepEqual(await redis.command("KEYS", `${prefix.replace(/[{}]/g, "\\$&")}:q:nan:*`), []);
    // Later heartbeats find nothing more to drop: the entry went once.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    assert.equal(frontier.stats().queue_bad, 1);
  } finally {
    await frontier.close();
    await redis.stop();
  }
});
