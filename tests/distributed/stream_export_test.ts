import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, startCli } from "../helpers/cli.ts";
import { startRedis } from "../helpers/redis.ts";
import { readItems, waitUntil } from "./_crawl.ts";

Deno.test("netweir queue items exports a stream to a CSV file, skipping an entry with no item in one line", async () => {
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), "netweir-export-"));
  try {
    for (const n of [1, 2]) await redis.command("XADD", "items", "*", "item", JSON.stringify({ n, name: `book ${n}` }));
    await redis.command("XADD", "items", "*", "other", "x");
    await redis.command("XADD", "items", "*", "item", JSON.stringify({ n: 3, name: "book 3" }));
    const csv = join(dir, "items.csv");
    const result = await runCli(["queue", "items", redis.url, "items", "-O", csv]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(await readFile(csv, "utf8"), "n,name\r\n1,book 1\r\n2,book 2\r\n3,book 3\r\n");
    assert.match(result.stderr, /WARNING entry \d+-\d+ of items skipped: no item field\n/);
    assert.match(result.stderr, /exported 3 items from items\n$/);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
  }
});

Deno.test("netweir queue items --follow writes new entries as they come, across a Redis restart, until SIGTERM", async () => {
  const redis = await startRedis({ appendonly: true });
  const dir = await mkdtemp(join(tmpdir(), "netweir-follow-"));
  try {
    const add = (n: number) => redis.command("XADD", "items", "*", "item", JSON.stringify({ n }));
    await add(1);
    const jsonl = join(dir, "items.jsonl");
    const follower = startCli(["queue", "items", redis.url, "items", "-o", jsonl, "--follow"], { timeoutMs: 60_000 });
    await waitUntil("the first item is exported", async () => (await readItems(jsonl)).length === 1);
    await add(2);
    await waitUntil("the second item follows", async () => (await readItems(jsonl)).length === 2);
    await redis.kill("SIGKILL");
    await follower.waitFor(/Redis unreachable; following items again once it is back/);
    await redis.restart();
    await add(3);
    await waitUntil("an item added after the restart follows", async () => (await readItems(jsonl)).length === 3);
    await follower.kill("SIGTERM");
    const result = await follower.wait();
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(await readItems(jsonl), [{ n: 1 }, { n: 2 }, { n: 3 }]);
    assert.match(result.stderr, /exported 3 items from items\n$/);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
  }
});

Deno.test("netweir queue items refuses a key that is not a stream in one line, with the password masked (exit 1)", async () => {
  const redis = await startRedis();
  try {
    await redis.command("SET", "items", "x");
    const url = redis.url.replace("redis://", "redis://:hunter2@");
    const result = await runCli(["queue", "items", url, "items"]);
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr,
      `netweir: key items on ${url.replace("hunter2", "***")} holds a string, not a stream\n`,
    );
  } finally {
    await redis.stop();
  }
});
