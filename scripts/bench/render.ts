/**
 * Rendering speed and memory (C23), Netweir beside a bare loop written with the same CDP library, on the same
 * JavaScript shop in the same run. Prints, asserts nothing.
 *
 *   deno run -A scripts/bench/render.ts [PRODUCTS=2000] [TABS=4] [--base=REV] [--rounds=1]
 *     [--only=bare,netweir,hybrid,auto,auto-bare] [--every=500] [--set=KEY=VALUE;KEY=VALUE]
 *
 * The shop (tests/helpers/js_site.ts) builds its listing pages with script, half of each behind "Load more"; 20
 * products a listing, so PRODUCTS products make PRODUCTS + PRODUCTS / 20 pages. Runs, each in a process of its own
 * and measured as a whole tree (the process and every Chromium process under it):
 *
 * - bare: scripts/bench/render_bare.ts, a pool of TABS tabs rendering every page, no framework;
 * - netweir: `netweir crawl` of tests/browser/fixtures/js_shop_spider.ts rendering every page, TABS tabs;
 * - hybrid: the crawl users should write: listings rendered, product pages over plain HTTP;
 * - auto: `render: "auto"` against all-rendered and the hybrid on a shop of three kinds of page, one built by
 *   script (scripts/bench/render_auto_runs.ts), with auto-bare its bare loop: pages rendered, items, pages/s;
 * - with --base=REV, a plain HTTP crawl of the product pages by this tree and by REV (a git revision from before
 *   rendering existed), alternating, to show what the browser code costs a crawl that renders nothing.
 *
 * For each: pages, pages/s over the whole run (start-up included), CPU seconds, peak PSS of the tree (Chromium's
 * processes share most of their pages, so PSS is the honest sum; RSS summed counts shared pages many times), and
 * for the netweir run the tree's PSS after every 500 (`--every`) rendered pages: the crawl process, the renderers
 * (each one's own) and the rest of Chromium apart, the lowest the tree and the crawl process were since the mark
 * before, and the RSS of the crawl process and of Chromium's processes summed (and of that, the anonymous memory,
 * which leaves out the code pages each process maps in as it runs). `--only` makes some of the runs, not all (e.g.
 * `--only=netweir` while tuning the pool). `--set` adds settings to the netweir and hybrid runs (`--set=cookies=false`,
 * to measure a clean cookie store for every page).
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../../tests/helpers/cli.ts";
import { startJsSite } from "../../tests/helpers/js_site.ts";
import { type Tree, tree } from "./process_tree.ts";
import { autoSection } from "./render_auto_runs.ts";

const positional = Deno.args.filter((arg) => !arg.startsWith("--"));
const option = (name: string) => Deno.args.find((arg) => arg.startsWith(`--${name}=`))?.split("=")[1];
const products = Number(positional[0] ?? 2000);
const tabs = Number(positional[1] ?? 4);
const base = option("base");
const rounds = Number(option("rounds") ?? 1);
/** Which runs to make (all three unless given, e.g. `--only=netweir` while tuning the pool). */
const only = option("only")?.split(",");
const runs = (name: string) => only === undefined || only.includes(name);
/** Settings added to the crawls (`--set=cookies=false;browser_tabs=2`): everything after `--set=`. */
const extraSettings = Deno.args.find((arg) => arg.startsWith("--set="))?.slice("--set=".length).split(";")
  .filter((setting) => setting !== "") ?? [];
/** Rendered items between two memory marks of the netweir run. */
const every = Number(option("every") ?? 500);
const PER_PAGE = 20;

interface RunResult {
  name: string;
  pages: number;
  seconds: number;
  cpu: number;
  peakPss: number;
  peakRss: number;
  /** The tree at its peak, by kind of process. */
  atPeak: Tree;
  /** Every `--every` items: the count, and the tree then (taken only while Chromium runs, not once it has closed). */
  series: Array<[number, Tree]>;
  /**
   * For each mark, the lowest tree PSS and the lowest crawl-process PSS sampled since the mark before: the crawl
   * process's garbage-collected heap saws up and down by tens of MB between collections, so one sample says less
   * about growth than the floor does.
   */
  floors: Array<{ tree: number; crawl: number }>;
}

/** Runs a command, sampling its tree every 200 ms; `progress` says how many pages it has done so far. */
async function measure(
  name: string,
  command: string,
  args: string[],
  pagesAtEnd: (stdout: string) => Promise<number>,
  progress?: () => Promise<number>,
): Promise<RunResult> {
  const started = performance.now();
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], cwd: REPO_ROOT });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk) => stdout += chunk);
  child.stderr!.on("data", (chunk) => stderr = (stderr + chunk).slice(-4000));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  let peakPss = 0;
  let peakRss = 0;
  let atPeak: Tree = {
    pss: 0,
    uss: 0,
    rss: 0,
    cpu: 0,
    kinds: {},
    rssKinds: {},
    anonKinds: {},
    renderers: 0,
    rendererPss: [],
  };
  let cpu = 0;
  const series: Array<[number, Tree]> = [];
  const floors: Array<{ tree: number; crawl: number }> = [];
  let floor = { tree: Infinity, crawl: Infinity };
  let nextMark = every;
  let done = false;
  exited.then(() => done = true);
  while (!done) {
    const now = await tree(child.pid!);
    if (now.pss > peakPss) atPeak = now;
    peakPss = Math.max(peakPss, now.pss);
    peakRss = Math.max(peakRss, now.rss);
    if (now.cpu > cpu) cpu = now.cpu;
    if (progress && now.renderers > 0) {
      floor = {
        tree: Math.min(floor.tree, now.pss),
        crawl: Math.min(floor.crawl, now.kinds["crawl process"] ?? Infinity),
      };
      const count = await progress();
      while (count >= nextMark) {
        series.push([nextMark, now]);
        floors.push(floor);
        floor = { tree: Infinity, crawl: Infinity };
        nextMark += every;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const code = await exited;
  if (code !== 0) throw new Error(`${name} exited with ${code}: ${stderr}`);
  return {
    name,
    pages: await pagesAtEnd(stdout),
    seconds: (performance.now() - started) / 1000,
    cpu,
    peakPss,
    peakRss,
    atPeak,
    series,
    floors,
  };
}

const deno = Deno.execPath();
const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;

function row(result: RunResult): string {
  const rate = result.pages / result.seconds;
  return `| ${result.name} | ${result.pages} | ${rate.toFixed(1)} | ${result.cpu.toFixed(1)} | ${
    mb(result.peakPss)
  } | ` +
    `${mb(result.peakRss)} |`;
}

const countLines = async (path: string) =>
  (await readFile(path, "utf8").catch(() => "")).split("\n").filter((line) => line !== "").length;

async function netweirRun(site: string, dir: string, name: string, renderProducts: boolean): Promise<RunResult> {
  const items = join(dir, `${name}.jsonl`);
  const stats = join(dir, `${name}-stats.json`);
  const concurrency = renderProducts ? tabs : 16;
  return await measure(
    name,
    deno,
    [
      "run",
      "-A",
      "cli.ts",
      "crawl",
      "tests/browser/fixtures/js_shop_spider.ts",
      "-a",
      `site=${site}`,
      "-a",
      `render_products=${renderProducts ? 1 : 0}`,
      "-O",
      items,
      "--stats-file",
      stats,
      ...[
        `browser_tabs=${tabs}`,
        `concurrency=${concurrency}`,
        `per_domain=${concurrency}`,
        "min_delay=0",
        "autothrottle=false",
        "obey_robots_txt=false",
        "log_level=warning",
        "progress=false",
        ...extraSettings,
      ].flatMap((setting) => ["-s", setting]),
    ],
    async () => Number(JSON.parse(await readFile(stats, "utf8")).pages),
    renderProducts ? () => countLines(items) : undefined,
  );
}

function bareRun(site: string, mode: "render" | "http"): Promise<RunResult> {
  return measure(
    mode === "render" ? "bare loop (all rendered)" : "bare loop (products over HTTP)",
    deno,
    ["run", "-A", "scripts/bench/render_bare.ts", site, String(tabs), mode],
    (stdout) => Promise.resolve(Number(JSON.parse(stdout.trim().split("\n").at(-1)!).pages)),
  );
}

/** A plain HTTP crawl of every product page, by the tree at `root`, for the before/after comparison. */
async function plainRun(root: string, site: string, dir: string, name: string): Promise<RunResult> {
  const spider = join(dir, `${name}-plain.ts`);
  const urls = Array.from({ length: products }, (_, i) => `${site}product/${i + 1}`);
  await writeFile(
    spider,
    `import { type Page, Spider } from "${root}/mod.ts";
export class Plain extends Spider {
  override startUrls = ${JSON.stringify(urls)};
  override parse(page: Page) { return { name: page.css("h1").text() }; }
}
`,
  );
  const stats = join(dir, `${name}-stats.json`);
  return await measure(
    name,
    deno,
    [
      "run",
      "-A",
      `${root}/cli.ts`,
      "crawl",
      spider,
      "-O",
      join(dir, `${name}.jsonl`),
      "--stats-file",
      stats,
      ...["concurrency=64", "per_domain=64", "min_delay=0", "autothrottle=false", "log_level=warning"]
        .flatMap((setting) => ["-s", setting]),
    ],
    async () => Number(JSON.parse(await readFile(stats, "utf8")).pages),
  );
}

const site = await startJsSite({ products, perPage: PER_PAGE });
const dir = await mkdtemp(join(tmpdir(), "netweir-render-bench-"));
try {
  console.log(`JavaScript shop: ${products} products, ${site.pages} listing pages; ${tabs} tabs; 2 cores`);
  const results: RunResult[] = [];
  for (let round = 0; round < rounds; round++) {
    if (runs("bare")) results.push(await bareRun(site.url, "render"));
    if (runs("netweir")) results.push(await netweirRun(site.url, dir, "netweir (all rendered)", true));
    if (runs("hybrid")) {
      results.push(await netweirRun(site.url, dir, "netweir hybrid (listings rendered, products HTTP)", false));
    }
  }
  // Only the auto section asked for (--only=auto): no JavaScript-shop tables.
  if (results.length > 0) {
    console.log(
      "\n| run | pages | pages/s | CPU s | peak PSS (tree) | peak RSS (summed) |\n| --- | --- | --- | --- | --- | --- |",
    );
    for (const result of results) console.log(row(result));
    const bare = results.filter((result) => result.name.startsWith("bare"));
    const all = results.filter((result) => result.name === "netweir (all rendered)");
    const hybrid = results.filter((result) => result.name.startsWith("netweir hybrid"));
    const best = (list: RunResult[]) => Math.max(...list.map((result) => result.pages / result.seconds));
    const peak = (list: RunResult[]) => Math.min(...list.map((result) => result.peakPss));
    if (bare.length > 0 && all.length > 0) {
      console.log(
        `\nnetweir / bare loop: ${(100 * best(all) / best(bare)).toFixed(0)}% of its pages/s at ` +
          `${(100 * peak(all) / peak(bare)).toFixed(0)}% of its peak PSS`,
      );
    }
    if (bare.length > 0 && hybrid.length > 0) {
      console.log(`hybrid / all-rendered bare loop: ${(best(hybrid) / best(bare)).toFixed(1)}x the pages/s`);
    }
    const kinds = ["crawl process", "browser", "renderer", "gpu-process", "network", "other"];
    console.log(`\nPSS at each run's peak, by process:\n\n| run | ${kinds.join(" | ")} | renderers |`);
    console.log(`| --- | ${kinds.map(() => "---").join(" | ")} | --- |`);
    for (const result of results) {
      const cells = kinds.map((kind) => mb(result.atPeak.kinds[kind] ?? 0));
      console.log(`| ${result.name} | ${cells.join(" | ")} | ${result.atPeak.renderers} |`);
    }
    if (all.length > 0) console.log(`\nnetweir (all rendered), tree PSS every ${every} rendered items:`);
    for (const [at, [count, now]] of (all[0]?.series ?? []).entries()) {
      const crawl = now.kinds["crawl process"] ?? 0;
      const renderers = now.kinds["renderer"] ?? 0;
      console.log(
        `  ${count}: ${mb(now.pss)}, private ${mb(now.uss)} (crawl process ${mb(crawl)}, renderers ${mb(renderers)}, ` +
          `rest of Chromium ${mb(now.pss - crawl - renderers)}; each renderer ` +
          `${now.rendererPss.map((own) => Math.round(own / 2 ** 20)).join(", ")}; ` +
          `lowest since the mark before: tree ${mb(all[0].floors[at].tree)}, crawl process ${
            mb(all[0].floors[at].crawl)
          })`,
      );
      // RSS too, as `ps` and `top` show it: Chromium's summed over its processes counts what they share many times.
      const crawlRss = now.rssKinds["crawl process"] ?? 0;
      const chromiumAnon = Object.entries(now.anonKinds).filter(([kind]) => kind !== "crawl process")
        .reduce((sum, [, bytes]) => sum + bytes, 0);
      const chromiumRss = `Chromium ${mb(now.rss - crawlRss)} summed over ${now.renderers} renderers and the rest`;
      console.log(
        `      RSS: crawl process ${mb(crawlRss)}, ${chromiumRss}, of which anonymous ${mb(chromiumAnon)}; ` +
          `PSS of Chromium's browser process ${mb(now.kinds["browser"] ?? 0)}, network ${
            mb(now.kinds["network"] ?? 0)
          }`,
      );
    }
  }

  if (runs("auto")) {
    await autoSection((name, command, args, pagesAtEnd) => measure(name, command, args, pagesAtEnd), {
      products,
      tabs,
      rounds,
      dir,
      bare: runs("auto-bare"),
    });
  }

  if (base) {
    const baseDir = join(dir, "base");
    const add = spawn("git", ["worktree", "add", "--detach", baseDir, base], { cwd: REPO_ROOT, stdio: "ignore" });
    await new Promise((resolve) => add.on("exit", resolve));
    try {
      const plain: RunResult[] = [];
      for (let round = 0; round < 3; round++) {
        plain.push(await plainRun(baseDir, site.url, dir, `plain HTTP, ${base}`));
        plain.push(await plainRun(REPO_ROOT, site.url, dir, "plain HTTP, this tree"));
      }
      console.log("\n| run | pages | pages/s | CPU s | peak PSS | peak RSS |\n| --- | --- | --- | --- | --- | --- |");
      for (const result of plain) console.log(row(result));
    } finally {
      const remove = spawn("git", ["worktree", "remove", "--force", baseDir], { cwd: REPO_ROOT, stdio: "ignore" });
      await new Promise((resolve) => remove.on("exit", resolve));
    }
  }
} finally {
  await site.close();
  await rm(dir, { recursive: true, force: true });
}
