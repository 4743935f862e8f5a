/**
 * A queue URL naming a database the server does not have: every command fails with one line naming it, exit 1,
 * before any key is read or written. (The Redis client only reports a failed SELECT as an event and carries on in
 * database 0, where a `queue clear` would delete another crawl's keys.)
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { QueueError } from "../../src/errors.ts";
import { Queue } from "../../src/queue/queue.ts";
import { RedisFrontier } from "../../src/queue/redis_frontier.ts";
import { Spider } from "../../src/spider/spider.ts";
import { runCli } from "../helpers/cli.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startRedis } from "../helpers/redis.ts";
import { hostList } from "../queue/_layout.ts";
import { startCrawler } from "./_crawl.ts";

class Plain extends Spider {}

const quiet = { debug() {}, info() {}, warning() {}, error() {} };

Deno.test("a database the server does not have fails every queue command with exit 1, and no key is touched", async () => {
  const redis = await startRedis({ unixSocket: true });
  try {
    // A crawl named "victim" in database 0, which a fallback to database 0 would clear or feed.
    const base = `redis://127.0.0.1:${redis.port}`;
    assert.equal((await runCli(["queue", "push", `${base}/0`, "victim", "http://127.0.0.1:9/a"])).code, 0);
    const before = (await redis.command("KEYS", "*") as string[]).sort();
    assert.ok(before.length > 0);

    for (
      const args of [
        ["queue", "clear", `${base}/42`, "victim"],
        ["queue", "push", `${base}/16`, "victim", "http://127.0.0.1:9/b"],
        ["queue", "status", `${base}/16`, "victim"],
        ["queue", "status", `redis+unix://${redis.socketPath}?db=99`, "victim"],
      ]
    ) {
      const result = await runCli(args);
      assert.equal(result.code, 1, `${args.join(" ")}: ${result.stderr}`);
      assert.equal(result.stdout, "");
      assert.match(result.stderr, /^netweir: database (42|16|99) does not exist on [^\n]+\n$/, result.stderr);
    }
    assert.deepEqual((await redis.command("KEYS", "*") as string[]).sort(), before, "database 0 untouched");
    assert.deepEqual(await redis.command("LRANGE", hostList("victim", 0, "127.0.0.1"), 0, -1), [
      '{"v":1,"url":"http://127.0.0.1:9/a"}',
    ]);

    await using queue = new Queue(`${base}/16`, "victim");
    await assert.rejects(queue.status(), (error) => error instanceof QueueError && /database 16/.test(error.message));
    await assert.rejects(
      RedisFrontier.open({
        url: `${base}/16`,
        key: "victim",
        spider: new Plain(),
        log: quiet,
        leaseSeconds: 3,
        idleSeconds: 1,
      }),
      (error) => error instanceof QueueError && /database 16 does not exist/.test(error.message),
    );
  } finally {
    await redis.stop();
  }
});

Deno.test("a crawl on a database the server does not have exits 1 at once, fetching nothing", async () => {
  const redis = await startRedis();
  const site = await startFixtureSite({ books: 5 });
  const dir = await mkdtemp(join(tmpdir(), "netweir-db-"));
  try {
    const crawler = startCrawler({ dir, name: "db16", site, queue: `redis://127.0.0.1:${redis.port}/16` });
    const result = await crawler.process.wait();
    assert.equal(result.code, 1, result.stderr);
    // One line: not retried for a lease (with a "trying again" warning) as an unreachable server would be.
    assert.equal(
      result.stderr,
      `netweir: database 16 does not exist on redis://127.0.0.1:${redis.port}/16 ` +
        `(see the server's "databases" setting)\n`,
    );
    assert.equal(site.requests.length, 0, "nothing fetched");
    assert.deepEqual(await redis.command("KEYS", "*"), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await site.close();
    await redis.stop();
  }
});
