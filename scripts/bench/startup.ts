/**
 * What a crawl costs before its first page: one-page crawls, alternating, on Deno and on the npm build on Node 22 (a
 * `.mjs` spider, and a `.ts` one with and without Netweir's cache of what Node strips), each run's wall time, CPU
 * seconds and peak RSS, and the medians. Prints; asserts nothing.
 *
 *   deno run -A scripts/test_setup.ts && deno run -A scripts/bench/startup.ts [ROUNDS=9]
 *
 * The site is one page linking to itself, served by nginx on 127.0.0.1; robots.txt is obeyed as by default (nginx
 * answers 404). The `.ts` crawl "uncached" runs with NODE_DISABLE_COMPILE_CACHE=1, which turns off both Node's compile
 * cache and the stripped-TypeScript cache (src/runtime/node_type_cache.ts), so Node loads its stripper every time;
 * "cached" has both, warmed by one unmeasured run. Each command runs once unmeasured first.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../../tests/helpers/cli.ts";
import { denoRuntime } from "../../src/runtime/deno.ts";
import { installBuiltPackage, NODE22 } from "../../tests/helpers/node_package.ts";
import { serveDirectory } from "./static_server.ts";
import { type Measured, timed } from "./timed.ts";
import { median } from "./median.ts";

const rounds = Number(Deno.args[0] ?? 9);

interface Command {
  label: string;
  command: string;
  args: string[];
  cwd: string;
  env?: Record<string, string>;
}

const work = await mkdtemp(join(tmpdir(), "netweir-bench-startup-"));
await mkdir(join(work, "site"));
const server = await serveDirectory(join(work, "site"), work);
const pkg = await installBuiltPackage();
try {
  await writeFile(join(work, "site", "index.html"), `<html><body><h1>One</h1><a href="/">again</a></body></html>`);
  const spiderTs = await readFile(join(REPO_ROOT, "scripts", "bench", "shop_links_spider.ts"), "utf8");
  await writeFile(join(pkg.dir, "spider.ts"), spiderTs.replace('"../../mod.ts"', '"netweir"'));
  await writeFile(
    join(pkg.dir, "spider.mjs"),
    `import { Request, Spider } from "netweir";
export class ShopLinks extends Spider {
  site = "http://127.0.0.1:8000/";
  allowedDomains = ["127.0.0.1"];
  async *start() {
    yield new Request({ url: this.site });
  }
  *parse(page) {
    for (const url of page.links()) yield page.follow(url);
  }
}
`,
  );
  const cache = join(pkg.dir, "user-cache");
  await mkdir(cache);
  const crawl = (spider: string) => ["crawl", spider, "-a", `site=${server.url}`, "-O", join(work, "items.jsonl")];
  const self = denoRuntime.selfCommand(join(REPO_ROOT, "cli.ts"));
  const cli = join(pkg.dir, "node_modules", "netweir", "cli.js");
  const commands: Command[] = [
    {
      label: "deno .ts",
      command: self.command,
      args: [...self.args, ...crawl(join(REPO_ROOT, "scripts", "bench", "shop_links_spider.ts"))],
      cwd: REPO_ROOT,
    },
    { label: "node .mjs", command: NODE22, args: [cli, ...crawl("spider.mjs")], cwd: pkg.dir },
    {
      label: "node .ts, cached",
      command: NODE22,
      args: [cli, ...crawl("spider.ts")],
      cwd: pkg.dir,
      env: { XDG_CACHE_HOME: cache },
    },
    {
      label: "node .ts, uncached",
      command: NODE22,
      args: [cli, ...crawl("spider.ts")],
      cwd: pkg.dir,
      env: { XDG_CACHE_HOME: cache, NODE_DISABLE_COMPILE_CACHE: "1" },
    },
  ];
  const runs = new Map<string, Measured[]>(commands.map((command) => [command.label, []]));
  const run = async (command: Command) => {
    const measured = await timed(command.command, command.args, { cwd: command.cwd, env: command.env });
    if (measured.code !== 0) throw new Error(`${command.label} failed: ${measured.stderr.slice(-2000)}`);
    return measured;
  };
  for (const command of commands) await run(command); // unmeasured: compile caches, the stripped spider
  console.log(`one-page crawls at ${server.url}, ${rounds} rounds, alternating`);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? commands : [...commands].reverse();
    for (const command of order) runs.get(command.label)!.push(await run(command));
  }
  console.log("\ncrawl                 wall s   CPU s   peak RSS   (medians)");
  for (const [label, measured] of runs) {
    const wall = median(measured.map((m) => m.wall));
    const cpu = median(measured.map((m) => m.cpu));
    const peak = median(measured.map((m) => m.peakMb));
    console.log(
      `${label.padEnd(20)} ${wall.toFixed(2).padStart(6)} ${cpu.toFixed(2).padStart(7)} ${
        peak.toFixed(0).padStart(7)
      } MB`,
    );
  }
} finally {
  await pkg.remove();
  await server.stop();
  await rm(work, { recursive: true, force: true });
}
