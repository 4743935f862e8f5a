/** A spider run from code (runSpider) takes part in a shared crawl when its settings name a queue, as on the command line. */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSpider, Settings } from "../../mod.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startRedis } from "../helpers/redis.ts";
import { ShopSpider } from "../engine/_spiders.ts";
import { bookUrls, readItems } from "./_crawl.ts";

Deno.test("runSpider with a queue setting crawls through the shared Redis queue and ends when it is idle", async () => {
  const books = 25;
  const site = await startFixtureSite({ books });
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), "netweir-run-spider-"));
  try {
    class Queued extends ShopSpider {
      override settings = new Settings({ queue: redis.url, queueKey: "from-code", queueIdle: 0.5 });
    }
    const items = join(dir, "items.jsonl");
    const stats = await runSpider(new Queued(site.url + "shop/"), {
      output: [items],
      settings: { minDelay: 0, autothrottle: false, progress: false, logLevel: "error" },
    });
    assert.equal(stats.finish_reason, "finished");
    assert.ok(Number(stats.leased) > 0, `leased ${stats.leased}: the queue was not used`);
    assert.deepEqual((await readItems(items)).map((item) => item.url).sort(), bookUrls(site, books).sort());
    assert.equal(await redis.command("HGET", "netweir:{from-code}:meta", "seen"), String(Number(stats.pushed)));
    assert.equal(await redis.command("ZCARD", "netweir:{from-code}:procs"), 0, "it left the crawl");
  } finally {
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
    await site.close();
  }
});

Deno.test("runSpider refuses s3:// output with a queue, and a queue it cannot reach is a QueueError", async () => {
  const { QueueError } = await import("../../mod.ts");
  class Queued extends ShopSpider {
    override settings = new Settings({ queue: "redis://:secret@127.0.0.1:1/0" });
  }
  await assert.rejects(
    runSpider(new Queued("http://127.0.0.1:1/"), { output: ["s3://bucket/items.jsonl"] }),
    /does not mix with a shared queue/,
  );
  await assert.rejects(runSpider(new Queued("http://127.0.0.1:1/"), { settings: { queueLease: 1 } }), (error) => {
    assert.ok(error instanceof QueueError, String(error));
    assert.doesNotMatch(String(error), /secret/);
    return true;
  });
});
