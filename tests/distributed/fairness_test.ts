/**
 * One process, two sites, one of them slow: with the shared queue the fast site must not wait behind the slow
 * one's requests. The queue keeps a list per host and a lease passes over the hosts this process already has
 * enough of, as the memory store does.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startRedis } from "../helpers/redis.ts";
import { bookUrls, readItems, startCrawler } from "./_crawl.ts";

/** Crawls SlowAndFast in one process with `settings`; returns how far the slow site was when the fast one was done. */
async function slowPagesWhenFastDone(settings: string[]): Promise<number> {
  const books = 100;
  const fast = await startFixtureSite({ books });
  const slow = await startFixtureSite({ hostname: "127.0.0.2" });
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), "netweir-fair-"));
  try {
    const crawler = startCrawler({
      dir,
      name: "fair",
      site: fast,
      queue: redis.url,
      spider: "SlowAndFast",
      settings: ["autothrottle=false", ...settings],
      args: ["-a", `slow=${slow.url}`],
    });
    const result = await crawler.process.wait();
    assert.equal(result.code, 0, result.stderr);
    const items = (await readItems(crawler.items)).map((item) => String(item.url));
    assert.deepEqual(items.filter((url) => url.startsWith(fast.origin)).sort(), bookUrls(fast, books).sort());
    assert.equal(items.filter((url) => url.startsWith(slow.origin)).length, 40);
    const fastDone = fast.requests.at(-1)!.at;
    return slow.requests.filter((request) => request.path.startsWith("/slow") && request.at <= fastDone).length;
  } finally {
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
    await fast.close();
    await slow.close();
  }
}

// Handed out in order, the shop's first page is only reached once 24 of the 40 slow pages are done: 16 are taken at
// first, and one more as each finishes.

Deno.test("a slow site queued first does not hold up a fast one when per_domain is small", async () => {
  // The engine says the slow host has enough waiting (per_domain=2) and the lease passes it over.
  const slowPages = await slowPagesWhenFastDone(["per_domain=2", "concurrency=16"]);
  assert.ok(slowPages < 20, `the slow site had been asked for ${slowPages} of 40 pages`);
});

Deno.test("a slow site queued first does not hold up a fast one with the default per_domain and concurrency", async () => {
  // per_domain=8 of concurrency=16: the slow host could fill every slot (8 running, 8 waiting); once this process
  // holds 8 of it, the lease takes the shop's requests first.
  const slowPages = await slowPagesWhenFastDone([]);
  assert.ok(slowPages < 20, `the slow site had been asked for ${slowPages} of 40 pages`);
});
