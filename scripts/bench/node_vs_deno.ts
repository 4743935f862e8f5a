/**
 * Pages per second of one crawl of the generated shop, on Deno (the sources) and on Node 22 (the npm build, packed
 * and installed as a user gets it), against the same server in the same run, alternating, with each run's CPU
 * seconds and peak RSS (GNU time). Prints the figures; asserts nothing.
 *
 *   deno run -A scripts/test_setup.ts && deno run -A scripts/bench/node_vs_deno.ts [BOOKS] [ROUNDS]
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { installBuiltPackage } from "../../tests/helpers/node_package.ts";
import { runtime } from "../../src/runtime/mod.ts";
import { serveShop } from "./shop_server.ts";
import { timed } from "./timed.ts";
import { median } from "./median.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const books = Number(runtime.args()[0] ?? 3000);
const rounds = Number(runtime.args()[1] ?? 3);
const SETTINGS = ["-s", "profile=fast", "-s", "obey_robots_txt=false", "-s", "log_level=warning"];

interface Run {
  pagesPerSecond: number;
  cpu: number;
  peakMb: number;
}

async function crawl(command: string, args: string[], statsFile: string): Promise<Run> {
  const ran = await timed(command, [...args, "--stats-file", statsFile, ...SETTINGS]);
  if (ran.code !== 0) throw new Error(`crawl failed: ${ran.stderr}`);
  const stats = JSON.parse(await readFile(statsFile, "utf8"));
  return { pagesPerSecond: stats.pages / stats.elapsed_seconds, cpu: ran.cpu, peakMb: ran.peakMb };
}

const shop = await serveShop(books);
const pkg = await installBuiltPackage();
try {
  const self = runtime.selfCommand(join(ROOT, "cli.ts"));
  const spider = join(ROOT, "examples", "books.ts");
  await writeFile(join(pkg.dir, "books.ts"), (await readFile(spider, "utf8")).replace('"../mod.ts"', '"netweir"'));
  const results: Record<string, Run[]> = { deno: [], node: [] };
  for (let round = 0; round < rounds; round++) {
    results.deno.push(
      await crawl(
        self.command,
        [...self.args, "crawl", spider, "-a", `site=${shop.url}`],
        join(pkg.dir, "d.json"),
      ),
    );
    results.node.push(
      await crawl(
        (await import("../../scripts/test_setup.ts")).NODE22,
        [
          join(pkg.dir, "node_modules", "netweir", "cli.js"),
          "crawl",
          join(pkg.dir, "books.ts"),
          "-a",
          `site=${shop.url}`,
        ],
        join(pkg.dir, "n.json"),
      ),
    );
  }
  const pages = books + Math.ceil(books / 20);
  console.log(`shop of ${books} books (${pages} pages), ${rounds} rounds, settings: ${SETTINGS.join(" ")}`);
  for (const [name, runs] of Object.entries(results)) {
    const each = runs.map((run) =>
      `${run.pagesPerSecond.toFixed(0)}/s ${run.cpu.toFixed(1)} s ${run.peakMb.toFixed(0)} MB`
    );
    console.log(
      `${name.padEnd(5)} median ${median(runs.map((run) => run.pagesPerSecond)).toFixed(0)} pages/s  (${
        each.join(", ")
      })`,
    );
  }
  const ratios = results.node.map((run, i) => run.pagesPerSecond / results.deno[i].pagesPerSecond);
  console.log(`node / deno pages/s, round by round: ${ratios.map((ratio) => ratio.toFixed(2)).join(", ")}`);
} finally {
  await pkg.remove();
  await shop.close();
}
