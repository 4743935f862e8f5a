/**
 * A process's own lease deadlines on a clock moved by hand (RedisFrontierOptions.clock), against a real
 * redis-server: when its heartbeat is due, and when failing heartbeats mean the queue is lost. A 60 s lease is checked
 * in milliseconds; the end-to-end test of the real deadline, with processes and a stopped Redis, is
 * tests/distributed/redis_lost_test.ts.
 */
import assert from "node:assert/strict";
import { QueueError } from "../../src/errors.ts";
import { encodeRequest } from "../../src/queue/codec.ts";
import { keyPrefix, RedisFrontier } from "../../src/queue/redis_frontier.ts";
import { Request } from "../../src/spider/request.ts";
import { Spider } from "../../src/spider/spider.ts";
import type { Logger } from "../../src/spider/types.ts";
import { ManualClock } from "../helpers/manual_clock.ts";
import { startRedis } from "../helpers/redis.ts";
import { waitUntil } from "../helpers/wait.ts";
import { heldEntry } from "./_layout.ts";

class Quiet extends Spider {}

/** A logger that keeps its lines. */
function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
  return { lines, debug: keep("debug"), info: keep("info"), warning: keep("warning"), error: keep("error") };
}

Deno.test("a heartbeat is due every third of a lease on the frontier's clock, and takes back what a silent process held", async () => {
  const redis = await startRedis();
  const clock = new ManualClock();
  const log = recordingLog();
  const key = "clock-beat";
  const frontier = await RedisFrontier.open({
    url: redis.url,
    key,
    spider: new Quiet(),
    log,
    leaseSeconds: 60,
    idleSeconds: 1,
    clock,
  });
  try {
    // A process that died holding a request (its last heartbeat at the start of 1970, by Redis's clock).
    const prefix = keyPrefix(key);
    await redis.command("ZADD", `${prefix}:procs`, 1, "ghost");
    const entry = encodeRequest(new Quiet(), new Request({ url: "http://127.0.0.1:9/held" }));
    await redis.command("HSET", `${prefix}:held:ghost`, "101", heldEntry(0, "127.0.0.1", entry));

    await clock.advance(19_999);
    // Nothing was due: the ghost still holds its request.
    assert.equal(await redis.command("EXISTS", `${prefix}:held:ghost`), 1);
    assert.equal(frontier.stats().leases_reclaimed, 0);

    await clock.advance(1);
    await waitUntil("the beat at 20 s took the request back", () => frontier.stats().leases_reclaimed === 1, 10_000);
    assert.equal(await redis.command("EXISTS", `${prefix}:held:ghost`), 0);
    assert.deepEqual((await frontier.lease(10)).map((lease) => lease.request.url), ["http://127.0.0.1:9/held"]);
  } finally {
    await frontier.close();
    await redis.stop();
  }
});

Deno.test("failing heartbeats lose the queue once a lease has passed on the frontier's clock, not before", async () => {
  const redis = await startRedis();
  const clock = new ManualClock();
  const log = recordingLog();
  // A lease of 1.5 s: each heartbeat that gets no answer is given up on after a third of it, 500 ms of real time.
  const frontier = await RedisFrontier.open({
    url: redis.url,
    key: "clock-lost",
    spider: new Quiet(),
    log,
    leaseSeconds: 1.5,
    idleSeconds: 1,
    clock,
  });
  const failures: Error[] = [];
  frontier.onFailure((error) => failures.push(error));
  try {
    await redis.pause();
    await clock.advance(500);
    await waitUntil("the beat at 0.5 s failed", () => log.lines.some((line) => /heartbeat failed/.test(line)), 10_000);
    assert.equal(failures.length, 0, "0.5 s without a beat is within the lease");

    // The retry is due a second later: at 1.5 s plus, past the lease.
    await clock.advance(1_001);
    await waitUntil("the queue is lost", () => failures.length > 0, 10_000);
    assert.ok(failures[0] instanceof QueueError);
    assert.match(failures[0].message, /lost the queue: no heartbeat got through for 1.5 s/);
  } finally {
    await redis.resume();
    await frontier.close();
    await redis.stop();
  }
});
