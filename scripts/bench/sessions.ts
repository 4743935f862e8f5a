/**
 * What sessions cost a crawl: the link shop crawled by the bare loop, by the css spider as users write it without
 * sessions, and by the same spider with `-s sessions=16`, on Deno. Prints; asserts nothing.
 *
 *   deno run -A scripts/bench/sessions.ts [PRODUCTS=5000] [ROUNDS=3]
 *
 * The shop (scripts/bench/link_shop.ts) is served by nginx on 127.0.0.1 (scripts/bench/static_server.ts). Netweir runs
 * with the `fast` profile, `per_domain=64` and otherwise its defaults (robots.txt obeyed, retries, stats, cookies on):
 * what a user runs. With sessions each request takes a session from the pool and each page's links are copied with
 * meta `session` set (Request.replace), which is the cost measured here. Rounds alternate their order; each figure is
 * the median over the rounds: pages/s over the whole run's wall time (start-up included) and pages per CPU second.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../../tests/helpers/cli.ts";
import { denoRuntime } from "../../src/runtime/deno.ts";
import { writeLinkShop } from "./link_shop.ts";
import { serveDirectory, type StaticServer } from "./static_server.ts";
import { type Measured, timed } from "./timed.ts";
import { median } from "./median.ts";

const products = Number(Deno.args[0] ?? 5_000);
const rounds = Number(Deno.args[1] ?? 3);
const SETTINGS = ["profile=fast", "per_domain=64", "log_level=warning"];
const RUNS = { bare: [], "no sessions": ["sessions=0"], "sessions=16": ["sessions=16"] } as const;
type RunName = keyof typeof RUNS;

async function runOnce(work: string, name: RunName, site: string): Promise<Measured & { pages: number }> {
  const bench = join(REPO_ROOT, "scripts", "bench");
  const items = join(work, "items.jsonl");
  const stats = join(work, "stats.json");
  await rm(stats, { force: true });
  let measured: Measured;
  if (name === "bare") {
    measured = await timed(Deno.execPath(), ["run", "-A", join(bench, "bare_crawl.mjs"), site, items], { cwd: bench });
  } else {
    const self = denoRuntime.selfCommand(join(REPO_ROOT, "cli.ts"));
    const settings = [...SETTINGS, ...RUNS[name]].flatMap((setting) => ["-s", setting]);
    const spider = join(bench, "shop_css_spider.ts");
    const crawl = ["crawl", spider, "-a", `site=${site}`, "-O", items, "--stats-file", stats, ...settings];
    measured = await timed(self.command, [...self.args, ...crawl], { cwd: REPO_ROOT });
  }
  if (measured.code !== 0) throw new Error(`${name} failed (exit ${measured.code}): ${measured.stderr.slice(-2000)}`);
  const pages = name === "bare"
    ? JSON.parse(measured.stdout.trim().split("\n").pop()!).pages
    : JSON.parse(await readFile(stats, "utf8")).pages;
  return { ...measured, pages };
}

const work = await mkdtemp(join(tmpdir(), "netweir-bench-sessions-"));
let server: StaticServer | undefined;
try {
  const root = join(work, "site");
  server = await serveDirectory(root, work);
  const shop = await writeLinkShop(root, products, server.url.replace(/\/$/, ""));
  console.log(`link shop: ${shop.pages} pages, served by ${server.kind}; netweir: ${SETTINGS.join(" ")}`);
  // Once unmeasured: Deno compiles the sources on a checkout's first run.
  await runOnce(work, "sessions=16", server.url);
  const names = Object.keys(RUNS) as RunName[];
  const results = new Map<RunName, Array<{ rate: number; perCpu: number; pages: number }>>();
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 === 0 ? names : [...names].reverse()) {
      const run = await runOnce(work, name, server.url);
      const figures = { rate: run.pages / run.wall, perCpu: run.pages / run.cpu, pages: run.pages };
      results.set(name, [...results.get(name) ?? [], figures]);
      console.log(
        `round ${round + 1} ${name}: ${run.pages} pages, ${figures.rate.toFixed(0)} pages/s, ` +
          `${figures.perCpu.toFixed(0)} pages per CPU s, ${run.peakMb.toFixed(0)} MB peak`,
      );
    }
  }
  const bare = median(results.get("bare")!.map((run) => run.rate));
  for (const name of names) {
    const rate = median(results.get(name)!.map((run) => run.rate));
    const perCpu = median(results.get(name)!.map((run) => run.perCpu));
    console.log(
      `${name}: median ${rate.toFixed(0)} pages/s (${(100 * rate / bare).toFixed(0)}% of bare), ` +
        `${perCpu.toFixed(0)} pages per CPU s`,
    );
  }
} finally {
  await server?.stop();
  await rm(work, { recursive: true, force: true });
}
