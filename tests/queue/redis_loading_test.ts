/**
 * A Redis restarted with persistence answers LOADING until it has read its data back. A crawl's process started
 * then, `netweir queue status` and `netweir queue push` wait for it (within a lease) rather than fail at once.
 * Against a real redis-server made to load slowly (its key-load-delay setting, a delay per key read).
 */
import assert from "node:assert/strict";
import { Queue } from "../../src/queue/queue.ts";
import { Request } from "../../src/spider/request.ts";
import { startRedis } from "../helpers/redis.ts";
import { sendCommand } from "../helpers/resp.ts";
import { waitUntil } from "../helpers/wait.ts";
import { newKey, openFrontier } from "./_frontier.ts";

Deno.test("a process, queue status and queue push started while Redis loads its data wait for it", async () => {
  // 10,000 keys read at 200 µs each: about two seconds of LOADING after a restart. (Many keys, not a few slow ones:
  // a loading server answers between every 1,024 keys only.) Each delay is a sleep, which a loaded machine overruns:
  // loading once took past the 10 s the helper then gave a restarted server.
  const redis = await startRedis({ appendonly: true, args: ["--key-load-delay", "200"] });
  const key = newKey();
  try {
    await redis.command("EVAL", "for i = 1, 10000 do redis.call('SET', 'filler:' .. i, 'x') end", 0);
    const restarting = redis.restart();
    // Awaited at the end; should it fail meanwhile, it fails this test there rather than the whole file at once.
    restarting.catch(() => {});
    await waitUntil("Redis answers LOADING", async () => {
      try {
        await sendCommand(redis.port, ["PING"], 500);
        return false;
      } catch (error) {
        return /^LOADING/.test((error as Error).message);
      }
    });
    await using queue = new Queue(redis.url, key);
    const [opened, status, pushed] = await Promise.all([
      openFrontier(redis.url, key, { leaseSeconds: 30 }),
      queue.status(),
      queue.push(["http://127.0.0.1:9/page/1"]),
    ]);
    const { frontier, log } = opened;
    try {
      assert.ok(log.lines.some((line) => /is loading its data; waiting/.test(line)), log.lines.join("\n"));
      // Status and push both waited for the load and went at once when it ended, in either order: the pushed URL is
      // waiting or not yet. (CI saw 1 once; 0 before.)
      assert.ok(status.waiting === 0 || status.waiting === 1, `waiting ${status.waiting}`);
      assert.deepEqual(pushed, { pushed: 1, skipped: 0 });
      const [lease] = await frontier.lease(1);
      assert.equal(lease.request.url, "http://127.0.0.1:9/page/1");
      await frontier.finish(lease, [new Request({ url: "http://127.0.0.1:9/page/2" })]);
    } finally {
      await frontier.close();
    }
    await restarting;
  } finally {
    await redis.stop();
  }
});
