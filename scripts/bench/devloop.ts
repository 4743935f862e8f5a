/**
 * Start-to-answer time of the developer's-loop commands (issue 25): `netweir fetch URL` and `netweir parse URL
 * --spider-file F` for one local page, on Deno and on the npm build under Node 22, beside `scrapy fetch` and
 * `scrapy parse` (Debian's Scrapy, /usr/bin/scrapy) on the same page. Each command once unmeasured (compile caches,
 * Node's stripped .ts), then ROUNDS rounds in alternating order; prints each command's median wall time, CPU seconds
 * and peak RSS, and Netweir's time as a share of Scrapy's. Prints; asserts nothing.
 *
 *   deno run -A scripts/test_setup.ts && deno run -A scripts/bench/devloop.ts [ROUNDS=10]
 *
 * The page is a book shop listing (20 links) served by nginx on 127.0.0.1; robots.txt is asked for and is a 404, for
 * both tools. The parse callback yields a request per book link, for both.
 */
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../../tests/helpers/cli.ts";
import { denoRuntime } from "../../src/runtime/deno.ts";
import { installBuiltPackage, NODE22 } from "../../tests/helpers/node_package.ts";
import { serveDirectory } from "./static_server.ts";
import { type Measured, timed } from "./timed.ts";
import { median } from "./median.ts";

const rounds = Number(Deno.args[0] ?? 10);
const SCRAPY = "/usr/bin/scrapy";

interface Command {
  label: string;
  command: string;
  args: string[];
  cwd: string;
  env?: Record<string, string>;
}

const NETWEIR_SPIDER = (mod: string) =>
  `import { type Page, Spider } from ${JSON.stringify(mod)};

export class Listing extends Spider {
  override *parse(page: Page) {
    for (const href of page.css("article.product_pod h3 a").attrs("href")) yield page.follow(href);
  }
}
`;

const SCRAPY_SPIDER = `import scrapy


class Listing(scrapy.Spider):
    name = "listing"

    def parse(self, response):
        for href in response.css("article.product_pod h3 a::attr(href)").getall():
            yield response.follow(href)
`;

/** A Scrapy project (scrapy parse needs one) with the listing spider, made by scrapy startproject. */
async function scrapyProject(dir: string): Promise<string> {
  const made = await timed(SCRAPY, ["startproject", "bench", dir]);
  if (made.code !== 0) throw new Error(`scrapy startproject failed: ${made.stderr}`);
  await writeFile(join(dir, "bench", "spiders", "listing.py"), SCRAPY_SPIDER);
  return dir;
}

/**
 * The packed build, installed; tried again when the build vanished under it (the build cache in .cache is shared by
 * every checkout on the machine, and a build of other sources removes the older one).
 */
async function installed(attempts = 4): Promise<Awaited<ReturnType<typeof installBuiltPackage>>> {
  for (let attempt = 1;; attempt++) {
    try {
      const pkg = await installBuiltPackage();
      // A copy taken while another checkout removed the build can come out partial, without an error.
      if (await stat(join(pkg.dir, "node_modules", "netweir", "cli.js")).then(() => true, () => false)) return pkg;
      await pkg.remove();
      throw new Error("the copied build has no cli.js");
    } catch (error) {
      if (attempt >= attempts) throw error;
      console.error(`installing the packed build failed (${(error as Error).message}); again`);
    }
  }
}

const work = await mkdtemp(join(tmpdir(), "netweir-bench-devloop-"));
await mkdir(join(work, "site"));
const server = await serveDirectory(join(work, "site"), work);
const pkg = await installed();
try {
  await writeFile(join(work, "site", "index.html"), await readFile(join(REPO_ROOT, "examples", "site", "index.html")));
  const url = server.url;
  await writeFile(join(work, "listing.ts"), NETWEIR_SPIDER(join(REPO_ROOT, "mod.ts")));
  await writeFile(join(pkg.dir, "listing.ts"), NETWEIR_SPIDER("netweir"));
  const project = await scrapyProject(join(work, "scrapy"));
  const self = denoRuntime.selfCommand(join(REPO_ROOT, "cli.ts"));
  const cli = join(pkg.dir, "node_modules", "netweir", "cli.js");
  const nodeEnv = { XDG_CACHE_HOME: join(pkg.dir, "user-cache") };
  const parse = ["parse", url, "--spider-file", "listing.ts", "--jsonl"];
  const commands: Command[] = [
    { label: "netweir fetch, deno", command: self.command, args: [...self.args, "fetch", url], cwd: work },
    { label: "netweir fetch, node", command: NODE22, args: [cli, "fetch", url], cwd: pkg.dir, env: nodeEnv },
    { label: "scrapy fetch", command: SCRAPY, args: ["fetch", "--nolog", url], cwd: work },
    { label: "netweir parse, deno", command: self.command, args: [...self.args, ...parse], cwd: work },
    { label: "netweir parse, node", command: NODE22, args: [cli, ...parse], cwd: pkg.dir, env: nodeEnv },
    {
      label: "scrapy parse",
      command: SCRAPY,
      args: ["parse", "--nolog", "--spider", "listing", "-c", "parse", url],
      cwd: project,
    },
  ];
  const runs = new Map<string, Measured[]>(commands.map((command) => [command.label, []]));
  const run = async (command: Command) => {
    const measured = await timed(command.command, command.args, { cwd: command.cwd, env: command.env });
    if (measured.code !== 0) throw new Error(`${command.label} failed: ${measured.stderr.slice(-2000)}`);
    if (!/product_pod|catalogue\//.test(measured.stdout)) {
      throw new Error(`${command.label} printed no answer: ${measured.stdout.slice(0, 500)}`);
    }
    return measured;
  };
  for (const command of commands) await run(command); // unmeasured
  console.log(`one page at ${url} (${server.kind}), ${rounds} rounds, alternating`);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? commands : [...commands].reverse();
    for (const command of order) runs.get(command.label)!.push(await run(command));
  }
  const wall = (label: string) => median(runs.get(label)!.map((m) => m.wall));
  console.log("\ncommand               wall s   CPU s   peak RSS   share of Scrapy's wall (medians)");
  for (const [label, measured] of runs) {
    const cpu = median(measured.map((m) => m.cpu));
    const peak = median(measured.map((m) => m.peakMb));
    const scrapy = label.startsWith("netweir fetch")
      ? "scrapy fetch"
      : label.startsWith("netweir parse")
      ? "scrapy parse"
      : "";
    const share = scrapy ? `${(wall(label) / wall(scrapy)).toFixed(2)}` : "";
    console.log(
      `${label.padEnd(20)} ${wall(label).toFixed(2).padStart(6)} ${cpu.toFixed(2).padStart(7)} ${
        peak.toFixed(0).padStart(7)
      } MB   ${share}`,
    );
  }
} finally {
  await pkg.remove();
  await server.stop();
  await rm(work, { recursive: true, force: true });
}
