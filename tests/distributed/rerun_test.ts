/**
 * The queue in Redis is the crawl's memory: processes stopped and started again carry on, a later crawl under the
 * same key fetches nothing it queued before, and `netweir queue clear` makes it start from nothing.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
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

Deno.test("processes stopped and started again carry on where they were, fetching nothing twice", async () => {
  const books = 200;
  const site = await startFixtureSite({ books });
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), "netweir-rerun-"));
  try {
    const common = {
      dir,
      site,
      queue: redis.url,
      settings: ["min_delay=0.05", "autothrottle=false", "per_domain=2"],
    };
    const first = ["1a", "1b"].map((name) => startCrawler({ ...common, name }));
    // Both at work (a signal to a process still starting up would end it before it can stop cleanly).
    await waitUntil("a quarter of the books are written, by both", async () => {
      const files = await Promise.all(first.map((crawler) => readItems(crawler.items)));
      return files.every((items) => items.length > 0) && files.flat().length >= books / 4;
    });
    for (const crawler of first) await crawler.process.kill("SIGINT");
    for (const crawler of first) {
      const result = await crawler.process.wait();
      assert.equal(result.code, 130, result.stderr);
    }
    const before = (await Promise.all(first.map((crawler) => readItems(crawler.items)))).flat();
    assert.ok(before.length < books, "the first run was stopped before the end");
    const firstRunEnd = site.requests.length;

    const second = ["2a", "2b"].map((name) => startCrawler({ ...common, name }));
    for (const crawler of second) {
      const result = await crawler.process.wait();
      assert.equal(result.code, 0, result.stderr);
    }
    const after = (await Promise.all(second.map((crawler) => readItems(crawler.items)))).flat();
    const all = [...before, ...after].map((item) => item.url);
    assert.deepEqual(duplicates(all), [], "no book written twice");
    assert.deepEqual([...all].sort(), bookUrls(site, books).sort(), "every book written once");

    const secondRun = shopFetches(site, firstRunEnd);
    assert.equal(secondRun.has("/shop/"), false, "the start URL is a duplicate by then");
    const written = new Set(before.map((item) => new URL(String(item.url)).pathname));
    assert.deepEqual([...secondRun.keys()].filter((path) => written.has(path)), [], "no finished page fetched again");
    assert.deepEqual(shopPagePaths(books).filter((path) => !shopFetches(site).has(path)), [], "every page fetched");
  } finally {
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
    await site.close();
  }
});

Deno.test("a second crawl under the same key fetches nothing old, and after queue clear fetches everything", async () => {
  const books = 40;
  const site = await startFixtureSite({ books });
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), "netweir-again-"));
  try {
    const run = async (name: string) => {
      const crawler = startCrawler({ dir, name, site, queue: redis.url });
      const result = await crawler.process.wait();
      assert.equal(result.code, 0, result.stderr);
      return { items: await readItems(crawler.items), stats: await readStats(crawler.stats) };
    };
    const first = await run("first");
    assert.equal(first.items.length, books);

    const marker = site.requests.length;
    const again = await run("again");
    assert.deepEqual(again.items, []);
    assert.equal(again.stats.pages, 0);
    assert.equal(again.stats.pushed, 0);
    assert.deepEqual([...shopFetches(site, marker).keys()], [], "nothing old fetched, listing pages included");

    const cleared = await runCli(["queue", "clear", redis.url, "Shop"]);
    assert.equal(cleared.code, 0, cleared.stderr);
    assert.deepEqual(await redis.command("KEYS", "netweir:{Shop}:*"), []);
    const fresh = await run("fresh");
    assert.deepEqual(fresh.items.map((item) => item.url).sort(), bookUrls(site, books).sort());
    assert.equal(fresh.stats.pages, shopPagePaths(books).length);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
    await site.close();
  }
});
