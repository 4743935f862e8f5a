/**
 * Netweir's crawl for scripts/bench/broad.ts: what `netweir crawl scripts/bench/broad_spider.ts -a seeds=SEEDS -O
 * ITEMS -s NAME=VALUE ...` runs (src/engine/assemble.ts builds the crawl, as the command line does), and, every
 * SAMPLE_MS, a line on stdout with the crawl's pages, its RSS and what it keeps per host (Crawl.hostState(): slots,
 * robots.txt entries, hosts with requests waiting, connections kept idle and busy). The command line has no way to
 * show the last; reading a few map sizes once a second costs the crawl nothing it would notice.
 *
 *   deno run -A scripts/bench/broad_netweir.ts SEEDS_FILE ITEMS_FILE [NAME=VALUE ...]
 *
 * Each line: `state {"seconds":..,"pages":..,"rssMb":..,"heapMb":..,"externalMb":..,...hostState}`; the last one is taken after
 * the crawl ends, after a full garbage collection when run with `--v8-flags=--expose-gc`.
 */
import { assembleCrawl } from "../../src/engine/assemble.ts";
import { runtime } from "../../src/runtime/mod.ts";
import { Settings } from "../../mod.ts";
import { Broad } from "./broad_spider.ts";

const SAMPLE_MS = 1000;

const [seeds, items, ...pairs] = Deno.args;
const overrides = Settings.fromPairs(pairs);
const spider = new Broad();
spider.seeds = seeds;
const { crawl } = await assembleCrawl(spider, { overrides, outputs: [{ path: items, overwrite: true }] });
const started = performance.now();
const sample = () => {
  const line = {
    seconds: Math.round((performance.now() - started) / 100) / 10,
    pages: crawl.stats.get("pages"),
    rssMb: Math.round(runtime.memoryRss() / 1e6),
    heapMb: Math.round(Deno.memoryUsage().heapUsed / 1e5) / 10,
    // Typed arrays' memory: the duplicate filter's table, the queue's packed records, buffers in flight.
    externalMb: Math.round(Deno.memoryUsage().external / 1e5) / 10,
    ...crawl.hostState(),
  };
  console.log(`state ${JSON.stringify(line)}`);
};
const sampler = setInterval(sample, SAMPLE_MS);
try {
  const stats = await crawl.run();
  // With --v8-flags=--expose-gc (broad.ts passes it), the last line's heap is what the ended crawl still holds, the
  // crawl object still referenced: its per-host state and its duplicate filter.
  (globalThis as { gc?: () => void }).gc?.();
  sample();
  console.log(`stats ${JSON.stringify({ pages: stats.pages, errors: stats.errors ?? 0 })}`);
} finally {
  clearInterval(sampler);
}
