import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startRedis } from "../helpers/redis.ts";
import { bookUrls, shopFetches, startCrawler, waitUntil } from "./_crawl.ts";
import { streamItems } from "./_stream.ts";

const BOOKS = 120;

Deno.test("a page whose items were streamed but whose finish never reached the queue (stopped) is fetched again and its items streamed again, never more often than it was fetched", async () => {
  const site = await startFixtureSite({ books: BOOKS });
  const queue = await startRedis({ appendonly: true });
  const streams = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), "netweir-refetch-"));
  try {
    // The stream on a server of its own, so the queue's can be stopped while items still go in: the victim's pages
    // in hand are fetched and their items streamed, and their finish, refused by the stopped queue, never lands. The
    // queue keeps its data (append-only file) and comes back with those pages still held by the dead victim.
    const common = { dir, site, queue: queue.url, args: ["-o", `${streams.url}?stream=items`] };
    const pace = (delay: number) => ["queue_lease=3", `min_delay=${delay}`, "autothrottle=false", "per_domain=2"];
    const victim = startCrawler({ ...common, name: "victim", settings: pace(0.3) });
    await waitUntil("the victim is at work", async () => Number(await streams.command("XLEN", "items")) >= 2);
    await queue.kill("SIGKILL");
    const before = Number(await streams.command("XLEN", "items"));
    await waitUntil(
      "the victim streams items the queue does not hear of",
      async () => Number(await streams.command("XLEN", "items")) >= before + 2,
    );
    await victim.process.kill("SIGKILL");
    await victim.process.wait();
    await queue.restart();
    const survivor = startCrawler({ ...common, name: "survivor", settings: pace(0.02) });
    const result = await survivor.process.wait();
    assert.equal(result.code, 0, result.stderr);

    const counts = new Map<string, number>();
    for (const item of await streamItems(streams, "items")) {
      counts.set(String(item.url), (counts.get(String(item.url)) ?? 0) + 1);
    }
    assert.deepEqual(bookUrls(site, BOOKS).filter((url) => !counts.has(url)), [], "every book is in the stream");
    const fetches = shopFetches(site);
    const twice = [...counts].filter(([, count]) => count > 1);
    assert.ok(twice.length >= 2, `the books streamed while the queue was down are there twice: ${twice.length}`);
    // At most once per fetch: a page the victim fetched but died before streaming is fetched twice and streamed once.
    for (const [url, count] of counts) {
      assert.ok(count <= (fetches.get(new URL(url).pathname) ?? 0), `${url}: ${count} times, more than it was fetched`);
    }
    console.log(`${twice.length} books twice in the stream`);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await queue.stop();
    await streams.stop();
    await site.close();
  }
});
