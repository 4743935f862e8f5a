/**
 * Netweir as users write spiders, against the ceiling, on Deno and on Node, in one run. Prints; asserts nothing.
 *
 *   deno run -A scripts/bench/crawl.ts [PRODUCTS=20000] [ROUNDS=1] [--deno-only] [--node-only] [--no-workers]
 *
 * It writes the link shop (scripts/bench/link_shop.ts: PRODUCTS product pages, 21,005 pages in all for 20,000, each
 * product page with about 27 links, most seen before, spelled every way) and serves it with nginx on 127.0.0.1.
 * Each Netweir command first crawls 200 pages unmeasured (Deno compiles the sources on a checkout's first run). Then,
 * ROUNDS times and alternating (every other round in the reverse order), on each runtime:
 *
 * - bare: scripts/bench/bare_crawl.mjs, the least a crawler can do (keep-alive agent, array queue, Set, SAX scan);
 * - css: `netweir crawl scripts/bench/shop_css_spider.ts`, `for (const href of page.css("a").attrs("href"))
 *   yield page.follow(href)` on every page, an item from each product page;
 * - links: the same spider with `page.links()` (scripts/bench/shop_links_spider.ts);
 * - workers: the links spider with its callbacks in one worker thread (`-s workers=1`), parsing on the second core
 *   (`--no-workers` leaves it out).
 *
 * All at 64 requests at once. Netweir runs with the `fast` profile and `per_domain=64`, and otherwise its defaults
 * (robots.txt obeyed, retries, stats): what a user runs. On Deno it is started as `deno task crawl` and Netweir's
 * own child processes start it, with the crawl's V8 heap settings (src/runtime/heap_flags.ts), which Deno takes only
 * on its command line; on Node the `netweir` command sets them itself. On Node it is the npm build, packed and installed as a
 * user gets it (run `deno run -A scripts/test_setup.ts` once first, for Node 22).
 *
 * For each run: pages, items, pages/s (over the whole run's wall time, start-up included), CPU seconds (user +
 * system) and peak RSS, from GNU time; then, per runtime, each spider's pages/s and pages per CPU second against the
 * bare loop's, and Node's pages/s against Deno's (also with each runtime's crawl taken against its own bare loop, which
 * tells Netweir's part of the gap from the runtimes'). Rounds are reported by their median; the ratios also round by round
 * (each against the run beside it in the same round) and by the median of those, which a drifting machine moves less.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../../tests/helpers/cli.ts";
import { denoRuntime } from "../../src/runtime/deno.ts";
import { installBuiltPackage, type InstalledPackage, NODE22 } from "../../tests/helpers/node_package.ts";
import { writeLinkShop } from "./link_shop.ts";
import { serveDirectory, type StaticServer } from "./static_server.ts";
import { type Measured, timed } from "./timed.ts";
import { median } from "./median.ts";

const args = Deno.args.filter((arg) => !arg.startsWith("--"));
const products = Number(args[0] ?? 20_000);
const rounds = Number(args[1] ?? 1);
const runtimes = Deno.args.includes("--deno-only")
  ? ["deno"]
  : Deno.args.includes("--node-only")
  ? ["node"]
  : ["deno", "node"];
type Crawler = "bare" | "css" | "links" | "workers";
/** The links spider with its callbacks in one worker thread (`-s workers=1`) too, unless `--no-workers`. */
const CRAWLERS: Crawler[] = Deno.args.includes("--no-workers")
  ? ["bare", "css", "links"]
  : ["bare", "css", "links", "workers"];
const SETTINGS = ["profile=fast", "per_domain=64", "log_level=warning"];

const number = (value: number) => value.toLocaleString("en-US");

interface Run extends Measured {
  pages: number;
  items: number;
}

/** The command line of one crawler on one runtime, run from `dir`. */
function commandFor(
  runtime: string,
  crawler: Crawler,
  site: string,
  items: string,
  stats: string,
  pkg?: InstalledPackage,
): { command: string; args: string[]; cwd: string } {
  const spider = crawler === "css" ? "shop_css_spider.ts" : "shop_links_spider.ts";
  const extra = crawler === "workers" ? ["-s", "workers=1"] : [];
  const crawl = (spiderFile: string) => [
    "crawl",
    spiderFile,
    "-a",
    `site=${site}`,
    "-O",
    items,
    "--stats-file",
    stats,
    ...SETTINGS.flatMap((setting) => ["-s", setting]),
    ...extra,
  ];
  if (runtime === "deno") {
    const bench = join(REPO_ROOT, "scripts", "bench");
    if (crawler === "bare") {
      return { command: Deno.execPath(), args: ["run", "-A", join(bench, "bare_crawl.mjs"), site, items], cwd: bench };
    }
    // As Netweir starts itself on Deno (and `deno task crawl` runs it): with the crawl's V8 heap settings.
    const self = denoRuntime.selfCommand(join(REPO_ROOT, "cli.ts"));
    return { command: self.command, args: [...self.args, ...crawl(join(bench, spider))], cwd: REPO_ROOT };
  }
  if (crawler === "bare") {
    return { command: NODE22, args: [join(pkg!.dir, "bare_crawl.mjs"), site, items], cwd: pkg!.dir };
  }
  return {
    command: NODE22,
    args: [join(pkg!.dir, "node_modules", "netweir", "cli.js"), ...crawl(join(pkg!.dir, spider))],
    cwd: pkg!.dir,
  };
}

async function countLines(path: string): Promise<number> {
  const text = await readFile(path, "utf8").catch(() => "");
  return text.split("\n").filter((line) => line.trim() !== "").length;
}

async function runOnce(
  work: string,
  runtime: string,
  crawler: Crawler,
  site: string,
  pkg?: InstalledPackage,
): Promise<Run> {
  const items = join(work, `${runtime}-${crawler}.jsonl`);
  const stats = join(work, `${runtime}-${crawler}-stats.json`);
  await rm(stats, { force: true });
  const { command, args: commandArgs, cwd } = commandFor(runtime, crawler, site, items, stats, pkg);
  const measured = await timed(command, commandArgs, { cwd });
  if (measured.code !== 0) {
    throw new Error(`${runtime} ${crawler} failed (exit ${measured.code}): ${measured.stderr.slice(-2000)}`);
  }
  // The bare loop prints its count as the last line of its output; Netweir writes its stats file.
  const pages = crawler === "bare"
    ? JSON.parse(measured.stdout.trim().split("\n").pop()!).pages
    : JSON.parse(await readFile(stats, "utf8")).pages;
  return { ...measured, pages, items: await countLines(items) };
}

const work = await mkdtemp(join(tmpdir(), "netweir-bench-links-"));
let server: StaticServer | undefined;
let pkg: InstalledPackage | undefined;
try {
  const root = join(work, "site");
  // The shop's absolute links name the server's port, so the port is taken first: serve an empty root, then write.
  server = await serveDirectory(root, work);
  const shop = await writeLinkShop(root, products, server.url.replace(/\/$/, ""));
  console.log(
    `link shop: ${number(shop.pages)} pages (${number(products)} products), ` +
      `${(shop.bytes / shop.pages / 1024).toFixed(1)} KB on average, served by ${server.kind} at ${server.url}`,
  );
  console.log(`64 requests at once; netweir settings: ${SETTINGS.join(" ")}; ${rounds} round(s), alternating`);
  if (runtimes.includes("node")) {
    pkg = await installBuiltPackage();
    for (const file of ["shop_css_spider.ts", "shop_links_spider.ts"]) {
      const source = await readFile(join(REPO_ROOT, "scripts", "bench", file), "utf8");
      await writeFile(join(pkg.dir, file), source.replace('"../../mod.ts"', '"netweir"'));
    }
    for (const file of ["bare_crawl.mjs", "sax_scan.mjs"]) {
      await writeFile(join(pkg.dir, file), await readFile(join(REPO_ROOT, "scripts", "bench", file), "utf8"));
    }
  }
  // Each Netweir command once on 200 pages first, not measured: Deno compiles the sources on a checkout's first run and
  // keeps V8's code cache after it (a few MB more at the peak, and slower, in whichever round came first).
  for (const runtime of runtimes) {
    for (const crawler of CRAWLERS.filter((crawler) => crawler !== "bare")) {
      const { command, args: commandArgs, cwd } = commandFor(
        runtime,
        crawler,
        server.url,
        join(work, "warm-up.jsonl"),
        join(work, "warm-up-stats.json"),
        pkg,
      );
      const warmUp = await timed(command, [...commandArgs, "-s", "max_pages=200"], { cwd });
      if (warmUp.code !== 0) throw new Error(`${runtime} ${crawler} warm-up failed: ${warmUp.stderr.slice(-2000)}`);
    }
  }
  console.log("warmed up: each Netweir command once on 200 pages (not measured)");
  const runs = new Map<string, Run[]>();
  for (let round = 0; round < rounds; round++) {
    // Every other round runs in the reverse order, so that a machine whose speed drifts during a round (this one's
    // does) does not always favour the runs at its start.
    const inOrder = <T>(list: readonly T[]) => round % 2 === 0 ? list : [...list].reverse();
    for (const runtime of inOrder(runtimes)) {
      for (const crawler of inOrder(CRAWLERS)) {
        const run = await runOnce(work, runtime, crawler, server.url, pkg);
        const key = `${runtime} ${crawler}`;
        runs.set(key, [...(runs.get(key) ?? []), run]);
        console.log(
          `  round ${round + 1}: ${key.padEnd(12)} ${number(run.pages).padStart(7)} pages ` +
            `${(run.pages / run.wall).toFixed(0).padStart(6)} pages/s ${run.cpu.toFixed(1).padStart(6)} CPU s ` +
            `${run.peakMb.toFixed(0).padStart(5)} MB`,
        );
      }
    }
  }
  const summary = (key: string) => {
    const list = runs.get(key)!;
    return {
      pages: median(list.map((run) => run.pages)),
      items: median(list.map((run) => run.items)),
      rate: median(list.map((run) => run.pages / run.wall)),
      perCpu: median(list.map((run) => run.pages / run.cpu)),
      cpu: median(list.map((run) => run.cpu)),
      peakMb: median(list.map((run) => run.peakMb)),
    };
  };
  console.log("");
  console.log("runtime crawler   pages    items  pages/s  CPU s  peak RSS  pages/s vs bare  pages/CPU s vs bare");
  for (const runtime of runtimes) {
    const bare = summary(`${runtime} bare`);
    for (const crawler of CRAWLERS) {
      const row = summary(`${runtime} ${crawler}`);
      console.log(
        `${runtime.padEnd(7)} ${crawler.padEnd(7)} ${number(row.pages).padStart(7)} ${number(row.items).padStart(8)} ` +
          `${row.rate.toFixed(0).padStart(8)} ${row.cpu.toFixed(1).padStart(6)} ${
            row.peakMb.toFixed(0).padStart(6)
          } MB` +
          `  ${(row.rate / bare.rate).toFixed(2).padStart(15)}  ${(row.perCpu / bare.perCpu).toFixed(2).padStart(19)}`,
      );
    }
  }
  // Ratios within a round too: the runs of one round are next to each other in time, so a machine whose speed drifts
  // (a shared host) moves both sides of a round's ratio alike, where it moves the medians apart.
  const rate = (run: Run) => run.pages / run.wall;
  const byRound = (over: string, under: string) => {
    const ratios = runs.get(over)!.map((run, round) => rate(run) / rate(runs.get(under)![round]));
    return `${median(ratios).toFixed(2)} (rounds: ${ratios.map((ratio) => ratio.toFixed(2)).join(", ")})`;
  };
  console.log("");
  for (const runtime of runtimes) {
    for (const crawler of CRAWLERS.filter((crawler) => crawler !== "bare")) {
      console.log(
        `${runtime} ${crawler} / bare pages/s, median of the rounds' ratios: ${
          byRound(`${runtime} ${crawler}`, `${runtime} bare`)
        }`,
      );
    }
  }
  if (runtimes.length === 2) {
    for (const crawler of CRAWLERS) {
      const ratio = summary(`node ${crawler}`).rate / summary(`deno ${crawler}`).rate;
      // Pages per CPU second move less with a machine that is lent away for a while than pages per wall second.
      const perCpu = summary(`node ${crawler}`).perCpu / summary(`deno ${crawler}`).perCpu;
      console.log(
        `node / deno pages/s, ${crawler}: ${ratio.toFixed(2)} of the medians; ` +
          `${byRound(`node ${crawler}`, `deno ${crawler}`)} round by round; pages per CPU s: ${perCpu.toFixed(2)}`,
      );
    }
    // How much of that is Netweir's: each runtime's crawl against its own bare loop, Node's share over Deno's. The
    // bare loops are the same script on each runtime, so where this is 1.00 the gap is the runtimes' own.
    const ownShare = (runtime: string, crawler: Crawler) =>
      summary(`${runtime} ${crawler}`).rate / summary(`${runtime} bare`).rate;
    console.log(
      `node / deno, each against its own bare loop (of the medians): ${
        CRAWLERS.filter((crawler) => crawler !== "bare").map((crawler) =>
          `${crawler} ${(ownShare("node", crawler) / ownShare("deno", crawler)).toFixed(2)}`
        ).join(", ")
      }`,
    );
  }
} finally {
  await pkg?.remove();
  await server?.stop();
  await rm(work, { recursive: true, force: true });
}
