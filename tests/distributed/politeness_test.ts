/**
 * politeness_scope=crawl: per_domain held for the whole crawl, not each process. Four processes share one queue and
 * crawl one site that counts, at the server, how many requests it has in flight at once.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FixtureSite } from "../helpers/fixture_site.ts";
import { startRedis } from "../helpers/redis.ts";
import { readItems, startCrawler } from "./_crawl.ts";

const PAGES = 60;

/** A shop of PAGES book pages, each answered after `ms`, that keeps the peak of requests in flight (robots.txt aside). */
async function startCountingSite(ms: number) {
  let inFlight = 0;
  let peak = 0;
  let served = 0;
  const server: Server = createServer((request, response) => {
    if (request.url === "/robots.txt") {
      response.writeHead(404).end();
      return;
    }
    inFlight++;
    peak = Math.max(peak, inFlight);
    setTimeout(() => {
      inFlight--;
      served++;
      const path = request.url ?? "/";
      const body = path === "/shop/"
        ? Array.from(
          { length: PAGES },
          (_, i) => `<article class="product_pod"><h3><a href="b${i}.html">b</a></h3></article>`,
        )
          .join("")
        : `<h1>${path}</h1>`;
      response.writeHead(200, { "content-type": "text/html" }).end(`<html><body>${body}</body></html>`);
    }, ms);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    site: { url: `http://127.0.0.1:${port}/` } as FixtureSite,
    peak: () => peak,
    served: () => served,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function crawlWithFour(scope: string): Promise<{ peak: number; items: number; served: number }> {
  // 200 ms a page keeps every request in flight for far longer than four processes take to ask for the next one, so
  // a third request at once would be seen; the crawl is 61 pages through 2 slots, about 6 s.
  const shop = await startCountingSite(200);
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), "netweir-polite-"));
  try {
    const crawlers = [1, 2, 3, 4].map((n) =>
      startCrawler({
        dir,
        name: `p${n}`,
        site: shop.site,
        queue: redis.url,
        settings: ["per_domain=2", "autothrottle=false", `politeness_scope=${scope}`, "queue_idle=2"],
      })
    );
    for (const crawler of crawlers) {
      const result = await crawler.process.wait();
      assert.equal(result.code, 0, result.stderr);
    }
    let items = 0;
    for (const crawler of crawlers) items += (await readItems(crawler.items)).length;
    return { peak: shop.peak(), items, served: shop.served() };
  } finally {
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
    await shop.close();
  }
}

Deno.test("with politeness_scope=crawl, four processes with per_domain=2 never have more than 2 requests at the site", async () => {
  const { peak, items, served } = await crawlWithFour("crawl");
  assert.equal(items, PAGES);
  assert.equal(served, PAGES + 1, "every page once");
  assert.ok(peak <= 2, `peak ${peak} in flight`);
  assert.equal(peak, 2, "and the two slots are used");
});

Deno.test("by default each process keeps per_domain on its own: four processes go past 2 at the site", async () => {
  const { peak, items } = await crawlWithFour("process");
  assert.equal(items, PAGES);
  assert.ok(peak > 2, `peak ${peak} in flight`);
});

Deno.test("with politeness_scope=crawl, the slots of a killed process come back once its lease runs out", async () => {
  const shop = await startCountingSite(200);
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), "netweir-polite-kill-"));
  try {
    const settings = ["per_domain=2", "autothrottle=false", "politeness_scope=crawl", "queue_lease=3"];
    const first = startCrawler({ dir, name: "first", site: shop.site, queue: redis.url, settings });
    // Killed while it holds the site's two slots: in the middle of the crawl, pages in flight.
    while (shop.served() < 10) await new Promise((resolve) => setTimeout(resolve, 20));
    await first.process.kill("SIGKILL");
    await first.process.wait();
    const second = startCrawler({ dir, name: "second", site: shop.site, queue: redis.url, settings });
    const result = await second.process.wait();
    assert.equal(result.code, 0, result.stderr);
    const urls = new Set(
      [...await readItems(first.items), ...await readItems(second.items)].map((item) => String(item.url)),
    );
    assert.equal(urls.size, PAGES, "every page, the killed process's included");
    assert.ok(shop.peak() <= 2, `peak ${shop.peak()}`);
    assert.deepEqual(await redis.command("HGETALL", "netweir:{Shop}:busy"), [], "no slot left taken");
  } finally {
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
    await shop.close();
  }
});
