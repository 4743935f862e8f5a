import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startRedis } from "../helpers/redis.ts";
import {
  bookUrls,
  duplicates,
  readItems,
  readStats,
  shopFetches,
  shopPagePaths,
  startCrawler,
  waitUntil,
} from "./_crawl.ts";

const BOOKS = 400;

Deno.test("a process killed mid-crawl loses nothing: a survivor takes its requests back and fetches them", async () => {
  const site = await startFixtureSite({ books: BOOKS });
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), "netweir-kill-"));
  try {
    // The survivors fetch about 20 pages a second each; the victim one every half second, so the requests it
    // takes wait with it for a while and it surely holds some when it dies.
    const common = { dir, site, queue: redis.url };
    const pace = (delay: number) => ["queue_lease=3", `min_delay=${delay}`, "autothrottle=false", "per_domain=2"];
    const victim = startCrawler({ ...common, name: "victim", settings: pace(0.5) });
    await waitUntil("the victim is at work", async () => (await readItems(victim.items)).length >= 1);
    const survivors = ["survivor-1", "survivor-2"].map((name) =>
      startCrawler({ ...common, name, settings: pace(0.05) })
    );
    await waitUntil("the victim has written 3 items", async () => (await readItems(victim.items)).length >= 3);
    await victim.process.kill("SIGKILL");
    const killed = await victim.process.wait();
    assert.equal(killed.signal, "SIGKILL");
    for (const survivor of survivors) {
      const result = await survivor.process.wait();
      assert.equal(result.code, 0, result.stderr);
    }

    // No page is missing from the union of the three items files.
    const files = await Promise.all([victim, ...survivors].map((crawler) => readItems(crawler.items)));
    const urls = new Set(files.flat().map((item) => item.url));
    assert.deepEqual(bookUrls(site, BOOKS).filter((url) => !urls.has(url)), [], "every book is in some file");
    assert.deepEqual(
      duplicates(files.slice(1).flat().map((item) => item.url)),
      [],
      "the survivors wrote no item twice",
    );
    assert.deepEqual(
      shopPagePaths(BOOKS).filter((path) => !shopFetches(site).has(path)),
      [],
      "every page was fetched",
    );

    const stats = await Promise.all(survivors.map((crawler) => readStats(crawler.stats)));
    const reclaimed = stats.map((one) => Number(one.leases_reclaimed));
    assert.ok(reclaimed.some((count) => count > 0), `a survivor took requests back: ${reclaimed}`);
    for (const one of stats) assert.equal(one.finish_reason, "finished");
    // Nothing is left behind in Redis: no process, nothing held, nothing waiting.
    assert.deepEqual(await redis.command("KEYS", "netweir:{Shop}:held:*"), []);
    assert.equal(await redis.command("ZCARD", "netweir:{Shop}:procs"), 0);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
    await site.close();
  }
});
