/**
 * The queue's connection to Redis: which servers it accepts (6.2 or later, not Sentinel), unix sockets, passwords
 * that never show in a message, and how fast it gives up on a server that is gone or hangs.
 */
import assert from "node:assert/strict";
import { QueueError } from "../../src/errors.ts";
import { describe, mayPass, RedisConnection } from "../../src/queue/redis_client.ts";
import { parseRedisUrl } from "../../src/settings/redis_url.ts";
import { startFakeRedis } from "../helpers/fake_redis.ts";
import { freePort } from "../helpers/free_port.ts";
import { startRedis } from "../helpers/redis.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";

function connect(url: string, timeoutMs = 2000): Promise<RedisConnection> {
  return RedisConnection.open(parseRedisUrl(url), url, timeoutMs);
}

Deno.test("a Redis older than 6.2 is refused with a QueueError naming its version", async () => {
  const fake = await startFakeRedis({ version: "6.0.0" });
  try {
    await assert.rejects(connect(fake.url), (error: Error) => {
      assert.ok(error instanceof QueueError);
      assert.equal(error.message, `${fake.url} runs Redis 6.0; the queue needs 6.2 or later`);
      return true;
    });
    assert.ok(fake.commands.some((args) => args[0].toUpperCase() === "INFO"));
  } finally {
    await fake.close();
  }
});

Deno.test("Redis 6.2 and later are accepted, Valkey's version included", async () => {
  for (const version of ["6.2.0", "7.2.4", "8.0.1"]) {
    const fake = await startFakeRedis({ version });
    try {
      const connection = await connect(fake.url);
      connection.close();
    } finally {
      await fake.close();
    }
  }
});

Deno.test("a Sentinel is refused: the queue needs the server itself", async () => {
  const fake = await startFakeRedis({ version: "7.2.0", mode: "sentinel" });
  try {
    await assert.rejects(connect(fake.url), /is a Redis Sentinel/);
  } finally {
    await fake.close();
  }
});

Deno.test("a redis+unix:// URL reaches a real redis-server through its unix socket", async () => {
  const redis = await startRedis({ unixSocket: true });
  try {
    const url = `redis+unix://${redis.socketPath}?db=3`;
    const connection = await connect(url);
    try {
      const me = String(await connection.client.call("CLIENT", "INFO"));
      assert.match(me, new RegExp(`addr=${redis.socketPath}`));
      assert.match(me, / db=3 /);
    } finally {
      connection.close();
    }
  } finally {
    await redis.stop();
  }
});

Deno.test("a wrong password is a QueueError whose message does not show the password", async () => {
  const redis = await startRedis();
  try {
    await redis.command("CONFIG", "SET", "requirepass", "right-secret");
    const wrong = `redis://:wrong-secret@127.0.0.1:${redis.port}/0`;
    await assert.rejects(connect(wrong), (error: Error) => {
      assert.ok(error instanceof QueueError);
      assert.doesNotMatch(error.message, /wrong-secret|right-secret/);
      assert.match(error.message, /redis:\/\/:\*\*\*@127\.0\.0\.1/);
      return true;
    });
    const socketWrong = `redis+unix:///nonexistent/redis.sock?pass=wrong-secret`;
    await assert.rejects(connect(socketWrong), (error: Error) => {
      assert.doesNotMatch(error.message, /wrong-secret/);
      return true;
    });
    const right = await connect(`redis://:right-secret@127.0.0.1:${redis.port}/0`);
    right.close();
  } finally {
    await redis.stop();
  }
});

Deno.test("a Redis that cannot be reached is a QueueError", async () => {
  const port = await freePort();
  await assert.rejects(connect(`redis://127.0.0.1:${port}/0`), (error: Error) => {
    assert.ok(error instanceof QueueError);
    assert.match(error.message, new RegExp(`cannot reach the queue at redis://127\\.0\\.0\\.1:${port}/0`));
    return true;
  });
});

Deno.test("a Redis that hangs is given up on once the timeout has passed, connecting included", async () => {
  const redis = await startRedis();
  await redis.pause();
  try {
    await assert.rejects(connect(redis.url, 500), QueueError);
  } finally {
    await redis.resume();
    await redis.stop();
  }
});

Deno.test("a command cut off by a lost connection is described in Netweir's words, not the client's option names", async () => {
  const redis = await startRedis();
  const connection = await RedisConnection.open(parseRedisUrl(redis.url), redis.url, 2000);
  try {
    // A call on its way when the connection drops: frozen, then killed, so it is surely in flight.
    await redis.pause();
    const call = connection.script("nwStatus", ["netweir:{down}"]).then(() => undefined, (error) => error);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await redis.kill("SIGKILL");
    const error = await call;
    assert.ok(error instanceof Error, "the call failed");
    assert.equal(describe(error), "not connected to Redis", (error as Error).message);
  } finally {
    connection.close();
    await redis.stop();
  }
});

Deno.test("a Redis with a command the queue uses renamed away is refused, naming it", async () => {
  const redis = await startRedis({ args: ["--rename-command", "LMOVE", ""] });
  try {
    await assert.rejects(connect(redis.url), (error: Error) => {
      assert.ok(error instanceof QueueError);
      assert.equal(error.message, `${redis.url} lacks LMOVE (renamed or disabled?); the queue needs it`);
      assert.equal(mayPass(error), false);
      return true;
    });
  } finally {
    await redis.stop();
  }
});

Deno.test("a server that is not Redis is named as such in one line, and not tried again", async () => {
  const site = await startFixtureSite({});
  try {
    const url = `redis://127.0.0.1:${new URL(site.url).port}/0`;
    await assert.rejects(connect(url), (error: Error) => {
      assert.ok(error instanceof QueueError);
      assert.equal(error.message, `${url} did not answer as a Redis server does (is it one?)`);
      assert.equal(mayPass(error), false);
      return true;
    });
  } finally {
    await site.close();
  }
});
