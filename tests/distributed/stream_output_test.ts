import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startRedis } from "../helpers/redis.ts";
import { streamItems } from "./_stream.ts";
import { bookUrls, readItems, readStats, shopFetches, startCrawler, waitUntil } from "./_crawl.ts";

const BOOKS = 300;

Deno.test("a process killed while items stream loses none: every book is in the shared stream, and a book is there at most once per fetch of its page", async () => {
  const site = await startFixtureSite({ books: BOOKS });
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), "netweir-stream-"));
  try {
    const stream = ["-o", `${redis.url}?stream=shop:items`];
    const common = { dir, site, queue: redis.url, args: stream };
    const pace = (delay: number) => ["queue_lease=3", `min_delay=${delay}`, "autothrottle=false", "per_domain=2"];
    const victim = startCrawler({ ...common, name: "victim", settings: pace(0.4) });
    await waitUntil("the victim is at work", async () => (await readItems(victim.items)).length >= 1);
    const survivors = ["survivor-1", "survivor-2"].map((name) =>
      startCrawler({ ...common, name, settings: pace(0.05) })
    );
    await waitUntil("the victim has written 3 items", async () => (await readItems(victim.items)).length >= 3);
    await victim.process.kill("SIGKILL");
    assert.equal((await victim.process.wait()).signal, "SIGKILL");
    for (const survivor of survivors) {
      const result = await survivor.process.wait();
      assert.equal(result.code, 0, result.stderr);
      assert.match(
        result.stderr,
        /Stored jsonl feed \(\d+ items\) in: redis:\/\/127\.0\.0\.1:\d+\/0\?stream=shop:items/,
      );
    }

    const items = await streamItems(redis, "shop:items");
    const inStream = new Map<string, number>();
    for (const item of items) inStream.set(String(item.url), (inStream.get(String(item.url)) ?? 0) + 1);
    assert.deepEqual(bookUrls(site, BOOKS).filter((url) => !inStream.has(url)), [], "every book is in the stream");
    // A reclaimed page is fetched again and its items written again: a book is in the stream once per fetch of its
    // page that got as far as writing, never more.
    const fetches = shopFetches(site);
    const overCounted = [...inStream].filter(([url, count]) => count > (fetches.get(new URL(url).pathname) ?? 0));
    assert.deepEqual(overCounted, [], "no book is in the stream more often than its page was fetched");
    // What each survivor wrote to its own file is in the stream too (both feeds are written before the finish).
    for (const survivor of survivors) {
      for (const item of await readItems(survivor.items)) assert.ok(inStream.has(String(item.url)), String(item.url));
    }
    const reclaimed = await Promise.all(
      survivors.map(async (one) => Number((await readStats(one.stats)).leases_reclaimed)),
    );
    assert.ok(reclaimed.some((count) => count > 0), `a survivor took the victim's requests back: ${reclaimed}`);
    const doubled = [...inStream.values()].filter((count) => count > 1).length;
    console.log(`stream: ${items.length} entries for ${inStream.size} books; ${doubled} books twice (re-fetched)`);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
    await site.close();
  }
});
