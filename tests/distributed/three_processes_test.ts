import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { installBuiltPackage, type Ran } from "../helpers/node_package.ts";
import { startRedis } from "../helpers/redis.ts";
import {
  bookUrls,
  crawlArgs,
  duplicates,
  fetchedTwice,
  readItems,
  readStats,
  SHOP_MJS,
  shopFetches,
  shopPagePaths,
  startCrawler,
  waitUntil,
} from "./_crawl.ts";

/** 2,857 books: with the front page and listing pages 2 to 143, a shop of exactly 3,000 pages. */
const BOOKS = 2857;

Deno.test("three processes, one of them the npm build on Node 22, fetch every page of a 3,000-page shop once between them", async () => {
  const site = await startFixtureSite({ books: BOOKS });
  const redis = await startRedis();
  const pkg = await installBuiltPackage();
  const dir = await mkdtemp(join(tmpdir(), "netweir-three-"));
  try {
    await writeFile(join(pkg.dir, "shop.mjs"), SHOP_MJS);
    // Paced (one request at a time per process, 2 ms apart: at most 500 pages a second each), so that the Node
    // process, which starts first, cannot finish the 3,000 pages alone before the other two have started on a busy
    // machine: each must take part for the test to show that a process joining later gets its share.
    const paced = ["per_domain=1", "min_delay=0.002", "autothrottle=false"];
    const common = { dir, site, queue: redis.url, settings: paced };
    // The Node process first, so that it surely takes part however slowly it starts.
    const node = pkg.netweir(crawlArgs("shop.mjs", { ...common, name: "node" }));
    let nodeEnded: Ran | undefined;
    node.then((result) => nodeEnded = result);
    await waitUntil("the Node process is at work", async () => {
      if (nodeEnded) throw new Error(`the Node process ended at once (${nodeEnded.code}):\n${nodeEnded.stderr}`);
      return (await readItems(join(dir, "items-node.jsonl"))).length > 0;
    });
    const deno = [startCrawler({ ...common, name: "deno-1" }), startCrawler({ ...common, name: "deno-2" })];
    const results = await Promise.all([...deno.map((crawler) => crawler.process.wait()), node]);
    for (const result of results) assert.equal(result.code, 0, result.stderr);

    const expected = shopPagePaths(BOOKS);
    assert.equal(expected.length, 3000);
    const fetches = shopFetches(site);
    assert.deepEqual([...fetches.keys()].sort(), [...expected].sort(), "every page fetched, and nothing else");
    assert.deepEqual(fetchedTwice(fetches), [], "no page fetched twice");

    const names = ["deno-1", "deno-2", "node"];
    const files = await Promise.all(names.map((name) => readItems(join(dir, `items-${name}.jsonl`))));
    const urls = files.flat().map((item) => item.url);
    assert.deepEqual(duplicates(urls), [], "no item in two files, nor twice in one");
    assert.deepEqual([...urls].sort(), bookUrls(site, BOOKS).sort());
    // Each process takes only what it can start, so one that joins a moment later still gets its share.
    for (const [i, name] of names.entries()) assert.ok(files[i].length > 0, `${name} wrote items too`);

    const stats = await Promise.all(names.map((name) => readStats(join(dir, `stats-${name}.json`))));
    for (const one of stats) {
      assert.equal(one.finish_reason, "finished");
      assert.equal(one.queue_bad, 0);
    }
    const total = (key: string) => stats.reduce((sum, one) => sum + Number(one[key]), 0);
    assert.equal(total("pages"), 3000);
    assert.equal(total("leased"), 3000);
    assert.equal(total("pushed"), 3000);
    assert.equal(total("items"), BOOKS);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await pkg.remove();
    await redis.stop();
    await site.close();
  }
});
