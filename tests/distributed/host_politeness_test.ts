/**
 * politeness_scope=crawl with per-host settings: a `hosts` entry's per_domain and min_delay are held for the whole
 * crawl by the lease script, as the crawl's own are. Two processes share one queue and crawl one site that notes when
 * each request arrives and how many are in flight at once. About 60 s for the three tests on a loaded machine.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FixtureSite } from "../helpers/fixture_site.ts";
import { startRedis } from "../helpers/redis.ts";
import { readItems, startCrawler } from "./_crawl.ts";

const BOOKS = 16;

/** A listing of BOOKS books under /shop/, each page answered after `ms`; it notes arrivals and the peak in flight. */
function startNotingSite(ms: number, books: number) {
  let inFlight = 0;
  let peak = 0;
  const arrivals: number[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/robots.txt") return new Response(null, { status: 404 });
    arrivals.push(Date.now());
    peak = Math.max(peak, ++inFlight);
    await new Promise((resolve) => setTimeout(resolve, ms));
    inFlight--;
    const links = path === "/shop/"
      ? Array.from({ length: books }, (_, i) => `<article class="product_pod"><h3><a href="b${i}">b</a></h3></article>`)
      : [];
    return new Response(`<h1>${path}</h1>${links.join("")}`, { headers: { "content-type": "text/html" } });
  });
  return {
    site: { url: `http://127.0.0.1:${server.addr.port}/` } as FixtureSite,
    peak: () => peak,
    arrivals: () => [...arrivals],
    close: () => server.shutdown(),
  };
}

/** Two processes on one queue with `settings`; the site's peak, its arrival times and the items written. */
async function crawlWithTwo(settings: string[], ms: number, books = BOOKS) {
  const shop = startNotingSite(ms, books);
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
    const runs: { start_time: string; finish_time: string }[] = [];
    for (const crawler of crawlers) {
      const result = await crawler.process.wait();
      assert.equal(result.code, 0, result.stderr);
      perProcess.push((await readItems(crawler.items)).length);
      const finished = /crawl finished (\{.*\})/.exec(result.stderr);
      assert.ok(finished, result.stderr);
      runs.push(JSON.parse(finished[1]) as { start_time: string; finish_time: string });
    }
    return { peak: shop.peak(), arrivals: shop.arrivals(), perProcess, runs };
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

Deno.test("a hosts entry's min_delay spaces the whole crawl's requests to the host", async () => {
  const hosts = JSON.stringify({ "127.0.0.1": { min_delay: 1 } });
  // 14 books, so 13 s of crawl: room for the second process to join even when it takes seconds to start (under the
  // suite's load it once started after the first had taken all of 8).
  const { arrivals, perProcess, runs } = await crawlWithTwo(["per_domain=4", "min_delay=0", `hosts=${hosts}`], 10, 14);
  assert.equal(perProcess[0] + perProcess[1], 14);
  // Both processes ran from before the first book to after the last, each free to take them (per_domain=4): with the
  // delay kept by each process alone, the two would take the books twice as fast. Which process takes them is the
  // race's (often the one that finished a page last asks first, and takes all).
  const books = arrivals.slice(1);
  for (const run of runs) {
    assert.ok(Date.parse(run.start_time) <= books[0], `a process started after the first book: ${run.start_time}`);
    assert.ok(Date.parse(run.finish_time) >= books[books.length - 1], "a process ended before the last book");
  }
  // The queue hands out one of the host's requests a second after the last, whichever process asks: the 14 books
  // span 13 s from the first lease to the last. Each process keeping the delay on its own (taking per_domain=4 at
  // once) would take about 4 s. Arrivals, not leases, are what the site sees: the first book may reach it late on a
  // loaded machine (which only shortens the span seen), hence 11.5 s, and no bound on each gap (a start can lag its
  // lease).
  const span = books[books.length - 1] - books[0];
  assert.ok(span >= 11_500, `the books arrived over ${Math.round(span)} ms`);
});
