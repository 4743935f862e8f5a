/**
 * One process, two sites, one of them slow: with the shared queue the fast site must not wait behind the slow
 * one's requests. The queue keeps a list per host and a lease passes over the hosts this process already has
 * enough of, as the memory store does.
 *
 * The slow site here does not answer at all until the test opens its gate, which it does only once the fast site has
 * been crawled to its last page (or a guard of a minute has passed, and the test fails). So the test asks the
 * question without a race between a timer and the crawl's speed: can the fast site be crawled completely while every
 * page of the slow site queued before it is outstanding? A queue handing out requests in order, or a lease that lets
 * the slow host fill every slot of the process (8 running and 8 waiting at the defaults), cannot: nothing of the shop
 * would start until the gate opened. An earlier version let the slow site answer in 800 ms and counted how far it was
 * when the fast one was done; on a loaded machine the fast crawl (CPU-bound) slowed while the 800 ms did not, and it
 * failed with nothing wrong in the product.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startRedis } from "../helpers/redis.ts";
import { bookUrls, readItems, shopFetches, shopPagePaths, startCrawler, waitUntil } from "./_crawl.ts";

/** How long the shop may take while the slow site is held: only a guard against a crawl stuck behind it. */
const GUARD_MS = 60_000;

/**
 * Crawls SlowAndFast in one process with `settings`, the slow site's 40 pages held until the shop has been crawled to
 * its last page and `perDomain` of them have been asked for. Returns how many of them had been asked for then.
 */
async function slowPagesAskedWhileShopCrawled(perDomain: number, settings: string[]): Promise<number> {
  const books = 100;
  const fast = await startFixtureSite({ books });
  const slow = await startFixtureSite({ hostname: "127.0.0.2" });
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), "netweir-fair-"));
  const slowAsked = () => slow.requests.filter((request) => request.path.startsWith("/gated/")).length;
  try {
    const crawler = startCrawler({
      dir,
      name: "fair",
      site: fast,
      queue: redis.url,
      spider: "SlowAndFast",
      // A held page must not time out (and be asked for again) while the guard runs.
      settings: ["autothrottle=false", "timeout=300", ...settings],
      // Every page under /gated/ waits for the gate: the spider's slow pages become /gated/slow?ms=800&n=N.
      args: ["-a", `slow=${slow.url}gated/`],
      timeoutMs: GUARD_MS + 60_000,
    });
    const shopPages = shopPagePaths(books).length;
    try {
      await waitUntil(
        "the shop to be crawled while the slow site's pages are held",
        () => shopFetches(fast).size === shopPages && slowAsked() >= perDomain,
        GUARD_MS,
      );
    } catch {
      throw new assert.AssertionError({
        message: `the shop was stuck behind the held slow site: ${shopFetches(fast).size} of its ${shopPages} ` +
          `pages were asked for, and ${slowAsked()} of the slow site's 40\n${crawler.process.output().stderr}`,
      });
    } finally {
      // Let the crawl end either way.
      slow.openGate();
    }
    const askedWhileHeld = slowAsked();
    const result = await crawler.process.wait();
    assert.equal(result.code, 0, result.stderr);
    const items = (await readItems(crawler.items)).map((item) => String(item.url));
    assert.deepEqual(items.filter((url) => url.startsWith(fast.origin)).sort(), bookUrls(fast, books).sort());
    assert.equal(items.filter((url) => url.startsWith(slow.origin)).length, 40);
    return askedWhileHeld;
  } finally {
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
    await fast.close();
    await slow.close();
  }
}

Deno.test("a slow site queued first does not hold up a fast one when per_domain is small", async () => {
  // The slow host has enough waiting here (per_domain=2) and this process holds a full share of it: the lease passes
  // it over.
  const asked = await slowPagesAskedWhileShopCrawled(2, ["per_domain=2", "concurrency=16"]);
  // Its pages were asked for meanwhile, but never more at once than per_domain allows.
  assert.equal(asked, 2, `the slow site was asked for ${asked} pages at once, with per_domain=2`);
});

Deno.test("a slow site queued first does not hold up a fast one with the default per_domain and concurrency", async () => {
  // per_domain=8 of concurrency=16: the slow host could fill every slot (8 running, 8 waiting); once this process
  // holds 8 of it, the lease takes the shop's requests first.
  const asked = await slowPagesAskedWhileShopCrawled(8, []);
  assert.equal(asked, 8, `the slow site was asked for ${asked} pages at once, with per_domain=8`);
});
