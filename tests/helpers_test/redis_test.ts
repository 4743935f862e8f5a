import assert from "node:assert/strict";
import { startRedis } from "../helpers/redis.ts";
import { encodeCommand, parseReply, RespError } from "../helpers/resp.ts";
import { Buffer } from "node:buffer";
import { processExists } from "../helpers/signal.ts";

Deno.test("startRedis runs a real redis-server on its own port that answers commands", async () => {
  const redis = await startRedis();
  try {
    assert.notEqual(redis.port, 6379);
    assert.equal(redis.url, `redis://127.0.0.1:${redis.port}/0`);
    assert.equal(await redis.command("SET", "greeting", "héllo"), "OK");
    assert.equal(await redis.command("GET", "greeting"), "héllo");
    assert.equal(await redis.command("GET", "missing"), null);
    assert.equal(await redis.command("RPUSH", "list", "a", "b", 3), 3);
    assert.deepEqual(await redis.command("LRANGE", "list", 0, -1), ["a", "b", "3"]);
    assert.deepEqual(await redis.command("CONFIG", "GET", "save"), ["save", ""]);
    assert.deepEqual(await redis.command("CONFIG", "GET", "appendonly"), ["appendonly", "no"]);
    await assert.rejects(redis.command("INCR", "greeting"), RespError);
  } finally {
    await redis.stop();
  }
});

Deno.test("two redis servers started side by side share nothing", async () => {
  const [first, second] = await Promise.all([startRedis(), startRedis()]);
  try {
    assert.notEqual(first.port, second.port);
    await first.command("SET", "only-here", "1");
    assert.equal(await second.command("EXISTS", "only-here"), 0);
  } finally {
    await Promise.all([first.stop(), second.stop()]);
  }
});

Deno.test("a paused redis answers nothing until it is resumed", async () => {
  const redis = await startRedis();
  try {
    await redis.pause();
    const waiting = redis.command("PING");
    let answered = false;
    waiting.then(() => answered = true, () => {});
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(answered, false);
    await redis.resume();
    assert.equal(await waiting, "PONG");
  } finally {
    await redis.stop();
  }
});

Deno.test("stop ends the process, and a stopped server refuses connections", async () => {
  const redis = await startRedis();
  const pid = redis.pid;
  assert.equal(await processExists(pid), true);
  await redis.stop();
  assert.equal(await processExists(pid), false);
  await assert.rejects(redis.command("PING"));
  await redis.stop();
});

Deno.test("stop also ends a paused server", async () => {
  const redis = await startRedis();
  const pid = redis.pid;
  await redis.pause();
  await redis.stop();
  assert.equal(await processExists(pid), false);
});

Deno.test("a killed redis restarts empty on the same port with a new process", async () => {
  const redis = await startRedis();
  try {
    await redis.command("SET", "k", "v");
    const firstPid = redis.pid;
    await redis.kill("SIGKILL");
    await assert.rejects(redis.command("PING"));
    await redis.restart();
    assert.notEqual(redis.pid, firstPid);
    assert.equal(await redis.command("PING"), "PONG");
    assert.equal(await redis.command("GET", "k"), null);
    assert.equal(redis.url, `redis://127.0.0.1:${redis.port}/0`);
  } finally {
    await redis.stop();
  }
});

Deno.test("restart also replaces a server that is still running", async () => {
  const redis = await startRedis();
  try {
    const firstPid = redis.pid;
    await redis.restart();
    assert.notEqual(redis.pid, firstPid);
    assert.equal(await processExists(firstPid), false);
    assert.equal(await redis.command("PING"), "PONG");
  } finally {
    await redis.stop();
  }
});

Deno.test("the RESP codec encodes commands and waits for whole replies", () => {
  assert.equal(encodeCommand(["SET", "k", "é"]).toString(), "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\né\r\n");
  const whole = Buffer.from("*3\r\n:1\r\n$-1\r\n*1\r\n+OK\r\n");
  assert.deepEqual(parseReply(whole), { value: [1, null, ["OK"]], next: whole.length });
  assert.equal(parseReply(Buffer.from("$5\r\nhel")), undefined);
  assert.equal(parseReply(Buffer.from("*2\r\n:1\r\n")), undefined);
  const error = parseReply(Buffer.from("-ERR wrong\r\n"))!.value;
  assert.ok(error instanceof RespError);
  assert.equal(error.message, "ERR wrong");
});

Deno.test("a redis started with appendonly keeps its data across restart", async () => {
  const redis = await startRedis({ appendonly: true });
  try {
    await redis.command("RPUSH", "queue", "a", "b");
    await redis.restart();
    assert.deepEqual(await redis.command("LRANGE", "queue", 0, -1), ["a", "b"]);
    await redis.kill("SIGTERM");
    await redis.restart();
    assert.deepEqual(await redis.command("LRANGE", "queue", 0, -1), ["a", "b"]);
  } finally {
    await redis.stop();
  }
});

Deno.test("a redis started with unixSocket listens on a socket in its own directory", async () => {
  const redis = await startRedis({ unixSocket: true });
  try {
    assert.match(redis.socketPath ?? "", /\/redis\.sock$/);
    assert.deepEqual(await redis.command("CONFIG", "GET", "unixsocket"), ["unixsocket", redis.socketPath!]);
  } finally {
    await redis.stop();
  }
  const plain = await startRedis();
  await plain.stop();
  assert.equal(plain.socketPath, undefined);
});
