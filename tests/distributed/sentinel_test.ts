/**
 * A shared crawl through Redis Sentinel (three redis-servers, a master and two replicas, and three redis-sentinel
 * processes, all on 127.0.0.1): the master is SIGKILLed mid-crawl, a replica is promoted, and the processes find it
 * through the Sentinels and finish the crawl with every book. The gap (from the kill until items flow again) is
 * printed, not asserted: it depends on the Sentinels' down-after-milliseconds and on this shared machine's load.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeFile } from "node:fs/promises";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { installBuiltPackage } from "../helpers/node_package.ts";
import { type SentinelSet, startSentinels } from "../helpers/sentinel.ts";
import {
  bookUrls,
  crawlArgs,
  type Crawler,
  expectEveryBook,
  readItems,
  SHOP_MJS,
  startCrawler,
  waitUntil,
} from "./_crawl.ts";

const BOOKS = 300;

/**
 * The lease must outlast the failover (a second before the master is called down, then the election), or the
 * processes give the queue up as lost; min_delay keeps the crawl going long enough to kill mid-way.
 */
const SETTINGS = ["queue_lease=15", "min_delay=0.05", "autothrottle=false", "per_domain=2"];

/**
 * Once a third of the books are written in `files`, SIGKILLs the master, waits for a replica to be promoted, and
 * prints how long until items flowed again: until a book is written that needed the queue after the kill. Items
 * already leased may still be written meanwhile, so "flowing again" is 8 more than at the kill (per_domain=2 times
 * two processes, twice over), at least one of them after the promotion.
 */
async function killMasterMidCrawl(sentinels: SentinelSet, files: string[], label: string): Promise<void> {
  const count = async () => (await Promise.all(files.map(readItems))).flat().length;
  await waitUntil("a third of the books are written", async () => await count() >= BOOKS / 3, 120_000);
  const oldPort = await sentinels.masterPort();
  const master = await sentinels.master();
  const killedAt = Date.now();
  const before = await count();
  await master.kill("SIGKILL");
  const newPort = await sentinels.waitForNewMaster(oldPort);
  const promotedAt = Date.now();
  assert.notEqual(newPort, oldPort);
  await waitUntil("books to be written again after the failover", async () => {
    return Date.now() > promotedAt && await count() >= before + 8;
  }, 90_000);
  console.log(
    `failover (${label}): replica promoted ${((promotedAt - killedAt) / 1000).toFixed(1)} s after the master's ` +
      `SIGKILL; books flowing again after ${((Date.now() - killedAt) / 1000).toFixed(1)} s`,
  );
}

Deno.test("a crawl through Sentinel survives its master's SIGKILL: a replica is promoted and no book is missing", async () => {
  const site = await startFixtureSite({ books: BOOKS });
  const sentinels = await startSentinels();
  const dir = await mkdtemp(join(tmpdir(), "netweir-sentinel-"));
  try {
    const crawlers: Crawler[] = ["a", "b"].map((name) =>
      startCrawler({ dir, name, site, queue: sentinels.url(0), settings: SETTINGS })
    );
    await killMasterMidCrawl(sentinels, crawlers.map((crawler) => crawler.items), "Deno");
    const stats = await expectEveryBook(site, BOOKS, crawlers);
    for (const crawlerStats of stats) assert.equal(crawlerStats.finish_reason, "finished");
  } finally {
    await rm(dir, { recursive: true, force: true });
    await sentinels.stop();
    await site.close();
  }
});

Deno.test("the npm build on Node 22 follows the failover too, beside a Deno process, and no book is missing", async () => {
  const site = await startFixtureSite({ books: BOOKS });
  const sentinels = await startSentinels();
  const pkg = await installBuiltPackage();
  const dir = await mkdtemp(join(tmpdir(), "netweir-sentinel-node-"));
  try {
    await writeFile(join(pkg.dir, "shop.mjs"), SHOP_MJS);
    const common = { dir, site, queue: sentinels.url(0), settings: SETTINGS };
    const node = pkg.netweir(crawlArgs("shop.mjs", { ...common, name: "node" }));
    const deno = startCrawler({ ...common, name: "deno" });
    const nodeItems = join(dir, "items-node.jsonl");
    // The Node process must be at work when the master dies, or the test would show nothing about it.
    await waitUntil("the Node process is at work", async () => (await readItems(nodeItems)).length > 0, 120_000);
    await killMasterMidCrawl(sentinels, [nodeItems, deno.items], "Node 22 and Deno");
    for (const result of [await node, await deno.process.wait()]) assert.equal(result.code, 0, result.stderr);
    const files = await Promise.all([readItems(nodeItems), readItems(deno.items)]);
    const urls = new Set(files.flat().map((item) => item.url));
    assert.deepEqual(bookUrls(site, BOOKS).filter((url) => !urls.has(url)), [], "no book is missing");
    assert.ok(files[0].length > 0 && files[1].length > 0, "both processes wrote books");
  } finally {
    await rm(dir, { recursive: true, force: true });
    await pkg.remove();
    await sentinels.stop();
    await site.close();
  }
});
