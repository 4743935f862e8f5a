/**
 * HTTP/2 beside HTTP/1.1, as a user's crawl runs them on Deno. Prints; asserts nothing.
 *
 *   deno run -A scripts/bench/http2.ts [PRODUCTS=2000] [ROUNDS=3] [LATENCY_PAGES=300]
 *
 * 1. The link shop (scripts/bench/link_shop.ts, PRODUCTS product pages) served by Debian's nginx over TLS with
 *    HTTP/2 offered by ALPN, crawled by the tutorial spider (scripts/bench/shop_css_spider.ts) with `http2=auto`
 *    (nginx picks h2: one connection, up to 64 streams) and with `http2=off` (HTTP/1.1 over TLS: 64 connections),
 *    ROUNDS times, alternating. Settings: profile=fast per_domain=64 obey_robots_txt=false log_level=warning.
 * 2. A site whose every answer waits 100 ms (Node's node:http2 server, which also speaks HTTP/1.1 by ALPN), a shop
 *    page linking LATENCY_PAGES items, crawled with per_domain=16 both ways: what HTTP/2's one connection costs or
 *    saves against HTTP/1.1's sixteen where the server, not the crawler, is the slow part.
 *
 * For each run: pages, pages/s (wall time of the whole command, start-up included) and CPU seconds (user + system,
 * from GNU time); then the medians per protocol.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI_PATH } from "../../tests/helpers/cli.ts";
import { makeCertificates } from "../../tests/helpers/certificates.ts";
import { freePort } from "../../tests/helpers/free_port.ts";
import { startNginxTls } from "../../tests/helpers/nginx_tls.ts";
import { startH2Site } from "../../tests/helpers/h2_server.ts";
import { writeLinkShop } from "./link_shop.ts";
import { timed } from "./timed.ts";
import { median } from "./median.ts";

const [products, rounds, latencyPages] = [
  Number(Deno.args[0] ?? 2000),
  Number(Deno.args[1] ?? 3),
  Number(Deno.args[2] ?? 300),
];
const SHOP_SPIDER = new URL("./shop_css_spider.ts", import.meta.url).pathname;

const dir = await mkdtemp(join(tmpdir(), "netweir-bench-h2-"));
const certs = await makeCertificates(dir);

interface Run {
  mode: string;
  pages: number;
  rate: number;
  cpu: number;
}

/** One crawl of `spider` at `site` with http2=`mode`; its pages from the stats file. */
async function crawl(spider: string, site: string, mode: string, settings: string[]): Promise<Run> {
  const stats = join(dir, "stats.json");
  const measured = await timed(Deno.execPath(), [
    "run",
    "-A",
    "--v8-flags=--max-semi-space-size=8,--heap-growing-percent=50",
    CLI_PATH,
    "crawl",
    spider,
    "-a",
    `site=${site}`,
    "-O",
    join(dir, "items.jsonl"),
    "-s",
    `stats_file=${stats}`,
    "-s",
    `http2=${mode}`,
    "-s",
    "obey_robots_txt=false",
    "-s",
    "log_level=warning",
    ...settings.flatMap((setting) => ["-s", setting]),
  ], { env: { DENO_CERT: certs.ca } });
  if (measured.code !== 0) throw new Error(`the crawl failed: ${measured.stderr.slice(-2000)}`);
  const record = JSON.parse(await readFile(stats, "utf8"));
  const protocol = mode === "off" ? "http/1.1" : "h2";
  if (record[`downloader/protocol/${protocol}`] !== record.pages) {
    throw new Error(`expected every page over ${protocol}: ${JSON.stringify(record)}`);
  }
  return { mode, pages: record.pages, rate: record.pages / measured.wall, cpu: measured.cpu };
}

async function alternate(label: string, spider: string, site: string, settings: string[]): Promise<void> {
  const runs: Run[] = [];
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? ["auto", "off"] : ["off", "auto"];
    for (const mode of order) {
      const run = await crawl(spider, site, mode, settings);
      runs.push(run);
      console.log(
        `  round ${round}: http2=${mode.padEnd(4)} ${String(run.pages).padStart(6)} pages ${
          run.rate.toFixed(0).padStart(6)
        } pages/s ${run.cpu.toFixed(2).padStart(6)} CPU s`,
      );
    }
  }
  console.log(`${label}, medians of ${rounds} rounds:`);
  for (const mode of ["auto", "off"]) {
    const mine = runs.filter((run) => run.mode === mode);
    console.log(
      `  ${mode === "auto" ? "HTTP/2  " : "HTTP/1.1"} (http2=${mode}) ${
        median(mine.map((run) => run.rate)).toFixed(0)
      } pages/s, ${median(mine.map((run) => run.cpu)).toFixed(2)} CPU s`,
    );
  }
}

try {
  const root = join(dir, "site");
  await mkdir(root);
  const port = await freePort();
  const shop = await writeLinkShop(root, products, `https://127.0.0.1:${port}`);
  const nginx = await startNginxTls({
    root,
    workDir: dir,
    cert: certs.serverCert,
    key: certs.serverKey,
    http2: true,
    port,
  });
  try {
    console.log(`1. link shop: ${shop.pages} pages from nginx over TLS (HTTP/2 offered), tutorial spider, 64 at once`);
    await crawl(SHOP_SPIDER, nginx.url, "auto", ["max_pages=200"]); // Deno compiles the sources once, unmeasured.
    await alternate("link shop", SHOP_SPIDER, nginx.url, ["profile=fast", "per_domain=64"]);
  } finally {
    await nginx.stop();
  }

  const latencySpider = join(dir, "latency_spider.ts");
  await writeFile(
    latencySpider,
    `import { Request, Spider } from ${JSON.stringify(new URL("../../mod.ts", import.meta.url).href)};
export class Slow extends Spider {
  site = "https://127.0.0.1:1/";
  async *start() { yield new Request({ url: this.site }); }
  *parse(page) { for (const href of page.css("a").attrs("href")) yield page.follow(href, { callback: this.item }); }
  item(page) { return { title: page.css("h1").text() }; }
}
`,
  );
  const slow = await startH2Site({ certs, allowHttp1: true, items: latencyPages, delayMs: 100 });
  try {
    console.log(`\n2. ${latencyPages + 1} pages, each answer 100 ms late (Node's http2 server), per_domain=16`);
    await alternate("100 ms a page", latencySpider, slow.url, ["per_domain=16", "autothrottle=false"]);
  } finally {
    await slow.close();
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
