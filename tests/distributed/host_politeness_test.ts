/**
 * politeness_scope=crawl with per-host settings: a `hosts` entry's per_domain and min_delay are held for the whole
 * crawl by the lease script, as the crawl's own are. Two processes share one queue and crawl one site that notes when
 * each request arrives and how many are in flight at once. About 12 s for the three tests.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FixtureSite } from "../helpers/fixture_site.ts";
import { startRedis } from "../helpers/redis.ts";
import { readItems, startCrawler } from "./_crawl.ts";

const BOOKS = 16;

/** A listing of BOOKS books under /shop/, each page answered after `ms`; it notes arrivals and the peak in flight. */
async function startNotingSite(ms: number) {
  let inFlight = 0;
  let peak = 0;
  const arrivals: number[] = [];
  const server: Server = createServer((request, response) => {
    if (request.url === "/robots.txt") {
      response.writeHead(404).end();
      return;
    }
    arrivals.push(performance.now());
    inFlight++;
    peak = Math.max(peak, inFlight);
    setTimeout(() => {
      inFlight--;
      const links = request.url === "/shop/"
        ? Array.from(
          { length: BOOKS },
          (_, i) => `<article class="product_pod"><h3><a href="b${i}">b</a></h3></article>`,
        )
        : [];
      response.writeHead(200, { "content-type": "text/html" }).end(`<h1>${request.url}</h1>${links.join("")}`);
    }, ms);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    site: { url: `http://127.0.0.1:${port}/` } as FixtureSite,
    peak: () => peak,
    arrivals: () => [...arrivals],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Two processes on one queue with `settings`; the site's peak, its arrival times and the items written. */
async function crawlWithTwo(settings: string[], ms: number) {
  const shop = await startNotingSite(ms);
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), "netweir-host-polite-"));
  try {
    const crawlers = ["a", "b"].map((name) =>
      startCrawler({
        dir,
        name,
        site: shop.site,
        queue: redis.url,
        settings: ["autothrottle=false", "politeness_scope=crawl", "queue_idle=2", ...settings],
      })
    );
    const perProcess: number[] = [];
    for (const crawler of crawlers) {
      const result = await crawler.process.wait();
      assert.equal(result.code, 0, result.stderr);
      perProcess.push((await readItems(crawler.items)).length);
    }
    return { peak: shop.peak(), arrivals: shop.arrivals(), perProcess };
  } finally {
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
    await shop.close();
  }
}

Deno.test("a hosts entry's per_domain=1 holds for the whole crawl: two processes never have two requests at the host", async () => {
  const hosts = JSON.stringify({ "127.0.0.1": { per_domain: 1 } });
  // 150 ms a page: far longer than the other process takes to ask for the next request, so a second one would show.
  const { peak, perProcess } = await crawlWithTwo(["per_domain=4", `hosts=${hosts}`], 150);
  assert.equal(perProcess[0] + perProcess[1], BOOKS);
  assert.equal(peak, 1);
});

Deno.test("the crawl's own per_domain still holds for hosts no entry names", async () => {
  const hosts = JSON.stringify({ "*.example.com": { per_domain: 1 } });
  const { peak, perProcess } = await crawlWithTwo(["per_domain=4", `hosts=${hosts}`], 150);
  assert.equal(perProcess[0] + perProcess[1], BOOKS);
  assert.ok(peak > 1 && peak <= 4, `peak ${peak} in flight`);
});

Deno.test("a hosts entry's min_delay spaces the starts of the whole crawl's requests to the host", async () => {
  const hosts = JSON.stringify({ "127.0.0.1": { min_delay: 0.3 } });
  const { arrivals, perProcess } = await crawlWithTwo(["per_domain=4", "min_delay=0", `hosts=${hosts}`], 10);
  assert.equal(perProcess[0] + perProcess[1], BOOKS);
  assert.ok(perProcess[0] > 0 && perProcess[1] > 0, `both processes fetched: ${perProcess}`);
  // A lower bound only (a loaded machine spaces them more, never less). 250 ms allows for the two processes' clocks
  // being read a few ms apart from Redis's, which keeps the delay.
  const gaps = arrivals.slice(1).map((at, i) => at - arrivals[i]);
  assert.ok(Math.min(...gaps) >= 250, `gaps ${gaps.map(Math.round).join(", ")} ms`);
});
