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

Deno.test("a slow site queued first does not hold up a fast one: the fast one is done while the slow one is not", async () => {
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
      settings: ["per_domain=2", "concurrency=16", "autothrottle=false"],
      args: ["-a", `slow=${slow.url}`],
    });
    const result = await crawler.process.wait();
    assert.equal(result.code, 0, result.stderr);
    const items = (await readItems(crawler.items)).map((item) => String(item.url));
    assert.deepEqual(items.filter((url) => url.startsWith(fast.origin)).sort(), bookUrls(fast, books).sort());
    assert.equal(items.filter((url) => url.startsWith(slow.origin)).length, 40);
    // Where the slow site was when the fast one got its last request. Handed out in order, the shop's first page
    // would only be reached once 24 of the 40 slow pages were done (16 taken at first, one more as each finished).
    const fastDone = fast.requests.at(-1)!.at;
    const slowBefore = slow.requests.filter((request) => request.path.startsWith("/slow") && request.at <= fastDone);
    assert.ok(slowBefore.length < 20, `the slow site had been asked for ${slowBefore.length} of 40 pages`);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
    await fast.close();
    await slow.close();
  }
});
