/**
 * Pages per second of one crawl of the generated shop, on Deno (the sources) and on Node 22 (the npm build, packed
 * and installed as a user gets it), against the same server in the same run. Prints the figures; asserts nothing.
 *
 *   deno run -A scripts/test_setup.ts && deno run -A scripts/bench/node_vs_deno.ts [BOOKS] [ROUNDS]
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { installBuiltPackage, runCommand } from "../../tests/helpers/node_package.ts";
import { runtime } from "../../src/runtime/mod.ts";
import { serveShop } from "./shop_server.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const books = Number(runtime.args()[0] ?? 3000);
const rounds = Number(runtime.args()[1] ?? 3);
const SETTINGS = ["-s", "profile=fast", "-s", "obey_robots_txt=false", "-s", "log_level=warning"];

async function pagesPerSecond(command: string, args: string[], statsFile: string): Promise<number> {
  const ran = await runCommand(command, [...args, "--stats-file", statsFile, ...SETTINGS]);
  if (ran.code !== 0) throw new Error(`crawl failed: ${ran.stderr}`);
  const stats = JSON.parse(await readFile(statsFile, "utf8"));
  return stats.pages / stats.elapsed_seconds;
}

const shop = await serveShop(books);
const pkg = await installBuiltPackage();
try {
  const self = runtime.selfCommand(join(ROOT, "cli.ts"));
  const spider = join(ROOT, "examples", "books.ts");
  await writeFile(join(pkg.dir, "books.ts"), (await readFile(spider, "utf8")).replace('"../mod.ts"', '"netweir"'));
  const results: Record<string, number[]> = { deno: [], node: [] };
  for (let round = 0; round < rounds; round++) {
    results.deno.push(
      await pagesPerSecond(
        self.command,
        [...self.args, "crawl", spider, "-a", `site=${shop.url}`],
        join(pkg.dir, "d.json"),
      ),
    );
    results.node.push(
      await pagesPerSecond(
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
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const pages = books + Math.ceil(books / 20);
  console.log(`shop of ${books} books (${pages} pages), ${rounds} rounds, settings: ${SETTINGS.join(" ")}`);
  for (const [name, values] of Object.entries(results)) {
    console.log(
      `${name.padEnd(5)} median ${median(values).toFixed(0)} pages/s  (${values.map((v) => v.toFixed(0)).join(", ")})`,
    );
  }
} finally {
  await pkg.remove();
  await shop.close();
}
