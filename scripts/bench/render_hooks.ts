/**
 * What the rendering hooks and debugging aids cost a crawl that renders every page: `netweir crawl` of the JavaScript
 * shop's spider (tests/browser/fixtures/js_shop_spider.ts, `-a render_products=1`), as a user runs it, beside the bare
 * puppeteer loop (scripts/bench/render_bare.ts), on the same shop in the same run. Prints, asserts nothing.
 *
 *   deno run -A scripts/bench/render_hooks.ts [PRODUCTS=300] [TABS=4] [--rounds=2] [--only=NAME,NAME]
 *
 * Runs, each a process of its own, alternated round by round so a machine's changing load falls on all alike:
 *
 * - bare: the bare loop, no framework;
 * - plain: the crawl with the settings below, nothing of this feature set;
 * - init script: the same with `browser_init_script` (added to and removed from the tab on every page);
 * - url glob: the same with `browser_block=image,font,media,*\/ads/*` (the glob goes to Chromium's Fetch patterns);
 * - hooks: a subclass of the spider with a `beforeRender` that sets the viewport and an `afterRender` that reads the
 *   title: every page then gets a fresh tab, since a hook may have changed the one it had;
 * - hooks (tabs kept): the same subclass with `keepTabsAfterHooks = true`, so tabs are reused as without hooks.
 *
 * Settings of every crawl: browser_tabs=TABS, concurrency=TABS, per_domain=TABS, min_delay=0, autothrottle=false,
 * obey_robots_txt=false, log_level=warning, progress=false. Pages/s is over the whole run, Chromium's start included.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../../tests/helpers/cli.ts";
import { startJsSite } from "../../tests/helpers/js_site.ts";

const positional = Deno.args.filter((arg) => !arg.startsWith("--"));
const products = Number(positional[0] ?? 300);
const tabs = Number(positional[1] ?? 4);
const rounds = Number(Deno.args.find((arg) => arg.startsWith("--rounds="))?.split("=")[1] ?? 2);
/** Which runs to make, by name (all unless given: `--only=plain crawl,hooks`). */
const only = Deno.args.find((arg) => arg.startsWith("--only="))?.slice("--only=".length).split(",");
const deno = Deno.execPath();

/** Runs a command to its end; its wall time in seconds and its stdout. */
function timed(args: string[]): Promise<{ seconds: number; stdout: string }> {
  const started = performance.now();
  const child = spawn(deno, args, { stdio: ["ignore", "pipe", "pipe"], cwd: REPO_ROOT });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk) => stdout += chunk);
  child.stderr!.on("data", (chunk) => stderr = (stderr + chunk).slice(-4000));
  return new Promise((resolve, reject) =>
    child.on("exit", (code) => {
      if (code !== 0) reject(new Error(`deno ${args.join(" ")} exited with ${code}: ${stderr}`));
      else resolve({ seconds: (performance.now() - started) / 1000, stdout });
    })
  );
}

const SETTINGS = [
  `browser_tabs=${tabs}`,
  `concurrency=${tabs}`,
  `per_domain=${tabs}`,
  "min_delay=0",
  "autothrottle=false",
  "obey_robots_txt=false",
  "log_level=warning",
  "progress=false",
];

const hookedSpider = (keepTabs: boolean) =>
  `import type { BrowserPage } from "${REPO_ROOT}/mod.ts";
import { JsShop } from "${REPO_ROOT}/tests/browser/fixtures/js_shop_spider.ts";
export class HookedShop extends JsShop {
  titles = 0;
  override keepTabsAfterHooks = ${keepTabs};
  override async beforeRender(page: BrowserPage) {
    await page.setViewport({ width: 1280, height: 800 });
  }
  override async afterRender(page: BrowserPage) {
    if (await page.title()) this.titles++;
  }
}
`;

async function crawlRun(site: string, dir: string, spider: string, extra: string[]): Promise<number> {
  const stats = join(dir, "stats.json");
  const { seconds } = await timed([
    "run",
    "-A",
    "cli.ts",
    "crawl",
    spider,
    "-a",
    `site=${site}`,
    "-a",
    "render_products=1",
    "-O",
    join(dir, "items.jsonl"),
    "--stats-file",
    stats,
    ...[...SETTINGS, ...extra].flatMap((setting) => ["-s", setting]),
  ]);
  return Number(JSON.parse(await readFile(stats, "utf8")).pages) / seconds;
}

async function bareRun(site: string): Promise<number> {
  const { seconds, stdout } = await timed(["run", "-A", "scripts/bench/render_bare.ts", site, String(tabs), "render"]);
  return Number(JSON.parse(stdout.trim().split("\n").at(-1)!).pages) / seconds;
}

const site = await startJsSite({ products, perPage: 20 });
const dir = await mkdtemp(join(tmpdir(), "netweir-bench-hooks-"));
const hooked = join(dir, "hooked_shop.ts");
await writeFile(hooked, hookedSpider(false));
const hookedKeeping = join(dir, "hooked_keeping_shop.ts");
await writeFile(hookedKeeping, hookedSpider(true));
const shop = "tests/browser/fixtures/js_shop_spider.ts";
const runs: Array<[string, () => Promise<number>]> = [
  ["bare loop", () => bareRun(site.url)],
  ["plain crawl", () => crawlRun(site.url, dir, shop, [])],
  ["init script", () => crawlRun(site.url, dir, shop, ["browser_init_script=window.__stamp = 1"])],
  ["url glob", () => crawlRun(site.url, dir, shop, ["browser_block=image,font,media,*/ads/*"])],
  ["hooks", () => crawlRun(site.url, dir, hooked, [])],
  ["hooks (tabs kept)", () => crawlRun(site.url, dir, hookedKeeping, [])],
];
const rates = new Map<string, number[]>();
try {
  for (let round = 0; round < rounds; round++) {
    for (const [name, run] of runs) {
      if (only !== undefined && !only.includes(name)) continue;
      const rate = await run();
      rates.set(name, [...rates.get(name) ?? [], rate]);
      console.error(`round ${round + 1}: ${name} ${rate.toFixed(1)} pages/s`);
    }
  }
} finally {
  await site.close();
  await rm(dir, { recursive: true, force: true });
}
const pages = products + products / 20;
console.log(`${pages} pages, all rendered, ${tabs} tabs, ${rounds} rounds (pages/s of each round; median)\n`);
console.log("| run | pages/s | median |\n| --- | --- | --- |");
for (const [name, list] of rates) {
  const sorted = [...list].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  console.log(`| ${name} | ${list.map((rate) => rate.toFixed(1)).join(", ")} | ${median.toFixed(1)} |`);
}
