/**
 * The `render: "auto"` runs of scripts/bench/render.ts, on the auto-rendering shop (tests/helpers/auto_site.ts): a
 * third of its kinds of page need JavaScript (listings built by script), two do not (products, makers). The same
 * tutorial-style spider (tests/browser/fixtures/auto_shop_spider.ts) crawls it three ways:
 *
 * - all rendered: every request `render: true`;
 * - hybrid: listings `render: true`, the rest plain, as a user who studied the site writes it by hand;
 * - auto: the spider asks for nothing and the crawl runs with `-s render=auto` (default sample and re-check);
 * - auto, re-check 1 in 20: the same with `-s render_auto_recheck=0.05`, to show what more re-checks cost;
 *
 * beside a bare loop that knows which pages need the browser (scripts/bench/render_auto_bare.ts). All crawls:
 * concurrency and per_domain 16, browser_tabs TABS, no delay, no autothrottle, robots.txt not fetched.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { startAutoSite } from "../../tests/helpers/auto_site.ts";

/** What the runner's measure() gives back (the part these runs print). */
interface Measured {
  name: string;
  pages: number;
  seconds: number;
  cpu: number;
  peakPss: number;
}

type Measure = (
  name: string,
  command: string,
  args: string[],
  pagesAtEnd: (stdout: string) => Promise<number>,
) => Promise<Measured>;

interface AutoRun extends Measured {
  rendered: number;
  /** The items written, one JSON line each, sorted (undefined for the bare loop, which writes none). */
  items?: string[];
  itemCount: number;
}

const CONCURRENCY = 16;

async function crawlRun(
  measure: Measure,
  first: string,
  dir: string,
  tabs: number,
  name: string,
  mode: "all" | "hybrid" | "auto",
  extra: string[] = [],
): Promise<AutoRun> {
  const file = `auto-${mode}${extra.length > 0 ? "-extra" : ""}`;
  const output = join(dir, `${file}.jsonl`);
  const statsFile = join(dir, `${file}-stats.json`);
  const settings = [
    `browser_tabs=${tabs}`,
    `concurrency=${CONCURRENCY}`,
    `per_domain=${CONCURRENCY}`,
    "min_delay=0",
    "autothrottle=false",
    "obey_robots_txt=false",
    "log_level=warning",
    "progress=false",
    ...(mode === "auto" ? ["render=auto"] : []),
    ...extra,
  ];
  const result = await measure(
    name,
    Deno.execPath(),
    [
      "run",
      "-A",
      "cli.ts",
      "crawl",
      "tests/browser/fixtures/auto_shop_spider.ts",
      ...["-a", `site=${first}`, "-a", `render=${mode === "auto" ? "none" : mode}`],
      ...["-O", output, "--stats-file", statsFile],
      ...settings.flatMap((setting) => ["-s", setting]),
    ],
    async () => Number(JSON.parse(await readFile(statsFile, "utf8")).pages),
  );
  const stats = JSON.parse(await readFile(statsFile, "utf8"));
  const items = (await readFile(output, "utf8")).split("\n").filter((line) => line !== "").sort();
  return { ...result, rendered: Number(stats["browser.pages"] ?? 0), items, itemCount: items.length };
}

async function bareRun(measure: Measure, first: string, tabs: number): Promise<AutoRun> {
  let counts = { rendered: 0, items: 0 };
  const result = await measure(
    "bare loop (listings rendered, the rest fetch())",
    Deno.execPath(),
    ["run", "-A", "scripts/bench/render_auto_bare.ts", first, String(tabs), String(CONCURRENCY)],
    (stdout) => {
      const last = JSON.parse(stdout.trim().split("\n").at(-1)!);
      counts = { rendered: last.rendered, items: last.items };
      return Promise.resolve(Number(last.pages));
    },
  );
  return { ...result, rendered: counts.rendered, itemCount: counts.items };
}

/** Runs the section `rounds` times and prints its table and the three figures the feature is judged by. */
export async function autoSection(
  measure: Measure,
  options: { products: number; tabs: number; rounds: number; dir: string; bare: boolean },
): Promise<void> {
  const site = await startAutoSite({ products: options.products, perPage: 20, perMaker: 5 });
  const pages = site.listings + site.products + site.makers;
  try {
    console.log(
      `\nrender: "auto" shop: ${site.listings} listings (script), ${site.products} products and ${site.makers} makers ` +
        `(plain): ${pages} pages; ${options.tabs} tabs, concurrency ${CONCURRENCY}`,
    );
    const runs: Record<string, AutoRun[]> = { all: [], hybrid: [], auto: [], rare: [], bare: [] };
    for (let round = 0; round < options.rounds; round++) {
      if (options.bare) runs.bare.push(await bareRun(measure, site.start, options.tabs));
      runs.all.push(await crawlRun(measure, site.start, options.dir, options.tabs, "netweir, all rendered", "all"));
      runs.hybrid.push(
        await crawlRun(measure, site.start, options.dir, options.tabs, "netweir, hybrid by hand", "hybrid"),
      );
      runs.auto.push(await crawlRun(measure, site.start, options.dir, options.tabs, "netweir, -s render=auto", "auto"));
      runs.rare.push(
        await crawlRun(measure, site.start, options.dir, options.tabs, "netweir, auto, re-check 1 in 20", "auto", [
          "render_auto_recheck=0.05",
        ]),
      );
    }
    console.log(
      "\n| run | pages | pages rendered | items | pages/s | CPU s | peak PSS (tree) |\n| --- | --- | --- | --- | --- | --- | --- |",
    );
    for (const run of Object.values(runs).flat()) {
      console.log(
        `| ${run.name} | ${run.pages} | ${run.rendered} | ${run.itemCount} | ${
          (run.pages / run.seconds).toFixed(1)
        } | ` +
          `${run.cpu.toFixed(1)} | ${Math.round(run.peakPss / 2 ** 20)} MB |`,
      );
    }
    const best = (list: AutoRun[]) => Math.max(...list.map((run) => run.pages / run.seconds));
    const same = (a: AutoRun, b: AutoRun) => JSON.stringify(a.items) === JSON.stringify(b.items);
    const all = runs.all[0];
    const identical = [...runs.auto, ...runs.rare, ...runs.hybrid].every((run) => same(run, all));
    const rendered = Math.max(...runs.auto.map((run) => run.rendered));
    console.log(`\nitems of auto and hybrid identical to all-rendered: ${identical ? "yes" : "NO"}`);
    console.log(
      `pages rendered, auto against all-rendered: ${rendered} against ${all.rendered} ` +
        `(${(100 * (1 - rendered / all.rendered)).toFixed(1)}% fewer; the hybrid renders ${runs.hybrid[0].rendered})`,
    );
    console.log(
      `pages/s, auto against the hybrid (best of ${options.rounds}): ${best(runs.auto).toFixed(1)} against ` +
        `${best(runs.hybrid).toFixed(1)} (${(100 * best(runs.auto) / best(runs.hybrid)).toFixed(0)}%); ` +
        `all-rendered ${best(runs.all).toFixed(1)}; with a re-check 1 in 20, ${best(runs.rare).toFixed(1)} ` +
        `(${(100 * best(runs.rare) / best(runs.hybrid)).toFixed(0)}%)`,
    );
    const cpu = (list: AutoRun[]) => Math.min(...list.map((run) => run.cpu));
    console.log(
      `CPU seconds (least of ${options.rounds}): auto ${cpu(runs.auto).toFixed(1)}, re-check 1 in 20 ` +
        `${cpu(runs.rare).toFixed(1)}, hybrid ${cpu(runs.hybrid).toFixed(1)}, all-rendered ${cpu(runs.all).toFixed(1)}`,
    );
  } finally {
    await site.close();
  }
}
