/**
 * The DNS cache (dns_cache) on and off, as a user's crawl over many names runs on Deno. Prints; asserts nothing.
 *
 *   deno run -A scripts/bench/dns_cache.ts [HOSTS=200] [PAGES=10] [DNS_DELAY_MS=20] [ROUNDS=3]
 *
 * HOSTS names (site-1.test ...) all answered by a DNS server in this process (tests/helpers/dns_server.ts, UDP on
 * 127.0.0.1, A records with a TTL of 300 s), each answer sent DNS_DELAY_MS late, as from a resolver that is not on
 * this machine. One HTTP server (tests/helpers/named_site.ts) is every site: a chain of PAGES pages, each answer with
 * `Connection: close`, so every page (and each site's robots.txt) is a new connection, the case where a crawl without
 * a cache looks its host up most. The crawl (`netweir crawl`, a process of its own, profile=fast, per_domain=2) goes
 * through the sites with dns_servers pointing at that server, dns_cache=true and false, ROUNDS times, alternating.
 *
 * For each run: pages, DNS queries the server got, pages/s (wall time of the whole command, start-up included), CPU
 * seconds (user + system, from GNU time) and peak RSS of the crawl; then the medians per mode.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI_PATH } from "../../tests/helpers/cli.ts";
import { startDnsServer } from "../../tests/helpers/dns_server.ts";
import { startNamedSite } from "../../tests/helpers/named_site.ts";
import { chainSpiderSource } from "../../tests/helpers/named_tls_site.ts";
import { timed } from "./timed.ts";
import { median } from "./median.ts";

const [hosts, pages, delayMs, rounds] = [
  Number(Deno.args[0] ?? 200),
  Number(Deno.args[1] ?? 10),
  Number(Deno.args[2] ?? 20),
  Number(Deno.args[3] ?? 3),
];

const dir = await mkdtemp(join(tmpdir(), "netweir-bench-dns-"));
const names = Array.from({ length: hosts }, (_, i) => `site-${i + 1}.test`);
const dns = await startDnsServer(
  Object.fromEntries(names.map((name) => [name, { a: ["127.0.0.1"], ttl: 300, delayMs }])),
);
const site = await startNamedSite(pages);
const spider = join(dir, "chains.ts");
await writeFile(spider, chainSpiderSource(new URL("../../mod.ts", import.meta.url).href));
const startUrls = names.map((name) => `http://${name}:${site.port}/p/0`).join(",");

interface Run {
  cache: boolean;
  pages: number;
  queries: number;
  rate: number;
  cpu: number;
  peakMb: number;
}

async function crawl(cache: boolean): Promise<Run> {
  const stats = join(dir, "stats.json");
  const before = dns.total();
  const measured = await timed(Deno.execPath(), [
    "run",
    "-A",
    CLI_PATH,
    "crawl",
    spider,
    "-a",
    `site=${startUrls}`,
    "-O",
    join(dir, "items.jsonl"),
    ...[
      `stats_file=${stats}`,
      `dns_servers=${dns.address}`,
      `dns_cache=${cache}`,
      "profile=fast",
      "per_domain=2",
      "retries=0",
      "log_level=warning",
      "progress=false",
    ].flatMap((setting) => ["-s", setting]),
  ]);
  if (measured.code !== 0) throw new Error(`the crawl failed: ${measured.stderr.slice(-2000)}`);
  const record = JSON.parse(await readFile(stats, "utf8"));
  // robots.txt is fetched, but not counted as a page.
  if (record.pages !== hosts * pages) throw new Error(`expected ${hosts * pages} pages: ${JSON.stringify(record)}`);
  return {
    cache,
    pages: record.pages,
    queries: dns.total() - before,
    rate: record.pages / measured.wall,
    cpu: measured.cpu,
    peakMb: measured.peakMb,
  };
}

const line = (label: string, run: Omit<Run, "cache">) =>
  `${label} ${String(run.pages).padStart(6)} pages ${String(run.queries).padStart(6)} DNS queries ${
    run.rate.toFixed(0).padStart(6)
  } pages/s ${run.cpu.toFixed(2).padStart(6)} CPU s ${run.peakMb.toFixed(0).padStart(4)} MB`;

try {
  console.log(
    `${hosts} hosts by name x ${pages} pages (+ robots.txt), a new connection each, DNS answers ${delayMs} ms late`,
  );
  await crawl(true); // Deno compiles the sources once, unmeasured.
  const runs: Run[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const cache of round % 2 === 1 ? [true, false] : [false, true]) {
      const run = await crawl(cache);
      runs.push(run);
      console.log(line(`  round ${round}: dns_cache=${String(cache).padEnd(5)}`, run));
    }
  }
  console.log(`medians of ${rounds} rounds:`);
  for (const cache of [true, false]) {
    const mine = runs.filter((run) => run.cache === cache);
    const pick = (key: "pages" | "queries" | "rate" | "cpu" | "peakMb") => median(mine.map((run) => run[key]));
    console.log(line(`  dns_cache=${String(cache).padEnd(5)}         `, {
      pages: pick("pages"),
      queries: pick("queries"),
      rate: pick("rate"),
      cpu: pick("cpu"),
      peakMb: pick("peakMb"),
    }));
  }
} finally {
  await site.close();
  await dns.close();
  await rm(dir, { recursive: true, force: true });
}
