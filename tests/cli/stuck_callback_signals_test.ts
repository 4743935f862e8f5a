/**
 * Signals to a crawl whose callback is stuck in synchronous code (src/runtime/stop_signal_watch.ts): a real
 * `netweir crawl` process, on Deno and from the packed npm build on Node 22, really sent SIGINT twice or SIGTERM
 * while its callback spins in a loop.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { type RunningProcess, type RunResult, startCli } from "../helpers/cli.ts";
import { installBuiltPackage, NODE22 } from "../helpers/node_package.ts";
import { sendSignal } from "../helpers/signal.ts";
import { sleep, waitUntil } from "../helpers/wait.ts";
import { withTempDir } from "./_run.ts";

/**
 * Two quick pages, then a slow one whose callback spins: for `-a spin=MS` milliseconds, or for ever; with
 * `-a spin=start`, start() spins for ever before it gives anything. JavaScript that both runtimes load: `FROM` is where
 * Spider and Request come from.
 */
function spinnerSource(from: string): string {
  return `import { Request, Spider } from ${JSON.stringify(from)};
export class Spinner extends Spider {
  site = "";
  spin = "forever";
  async *start() {
    if (this.spin === "start") {
      console.error("spinning in start()");
      for (;;);
    }
    yield new Request({ url: this.site + "echo?n=1" });
    yield new Request({ url: this.site + "echo?n=2" });
    yield new Request({ url: this.site + "slow?ms=1500" });
  }
  parse(page) {
    const n = new URL(page.url).searchParams.get("n");
    if (n !== null) return { n };
    console.error("spinning in a callback");
    const until = this.spin === "forever" ? Infinity : Date.now() + Number(this.spin);
    while (Date.now() < until) {}
    return { n: "slow" };
  }
}
`;
}

/** How a crawl is started on one runtime: the spider file's text, and the command. */
interface Runner {
  spiderFile: (dir: string) => Promise<string>;
  start: (args: string[]) => RunningProcess;
}

const denoRunner: Runner = {
  async spiderFile(dir) {
    const file = join(dir, "spinner.ts");
    await writeFile(file, spinnerSource(new URL("../../mod.ts", import.meta.url).href));
    return file;
  },
  // A guard only: a crawl that nothing can stop is killed after this, and the test fails.
  start: (args) => startCli(args, { timeoutMs: 40_000 }),
};

/** The packed npm build's `netweir` on Node 22, in a project of its own (tests/helpers/node_package.ts). */
function nodeRunner(project: string): Runner {
  return {
    async spiderFile() {
      // In the project, where `netweir` resolves to the installed package.
      const file = join(project, "spinner.mjs");
      await writeFile(file, spinnerSource("netweir"));
      return file;
    },
    start: (args) => startNode(project, args),
  };
}

/** Starts the npm build's cli.js on Node 22 in `project`, as a RunningProcess (killed after 40 s at most). */
function startNode(project: string, args: string[]): RunningProcess {
  const child = spawn(NODE22, [join(project, "node_modules", "netweir", "cli.js"), ...args], {
    cwd: project,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => stdout += chunk);
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => stderr += chunk);
  let timedOut = false;
  const guard = setTimeout(() => {
    timedOut = true;
    void sendSignal(child.pid!, "SIGKILL").catch(() => {});
  }, 40_000);
  const result = new Promise<RunResult>((resolve, reject) =>
    child.once("close", (code, signal) => {
      clearTimeout(guard);
      if (timedOut) reject(new Error(`the crawl did not end in 40 s\nstderr:\n${stderr}`));
      else resolve({ code, signal, stdout, stderr });
    })
  );
  result.catch(() => {});
  return {
    pid: child.pid!,
    wait: () => result,
    kill: (signal = "SIGTERM") => sendSignal(child.pid!, signal),
    output: () => ({ stdout, stderr }),
    waitFor: async (pattern, ms = 30_000) => {
      await waitUntil(`${pattern}`, () => pattern.test(stdout) || pattern.test(stderr), ms);
      return (pattern.exec(stdout) ?? pattern.exec(stderr))![0];
    },
  };
}

/** Starts the spinner against `site` with a JSON Lines and a JSON feed; resolves once its callback spins. */
async function spinningCrawl(runner: Runner, dir: string, site: string, spin: string) {
  const lines = join(dir, "items.jsonl");
  const json = join(dir, "items.json");
  const stats = join(dir, "stats.json");
  const crawl = runner.start([
    "crawl",
    await runner.spiderFile(dir),
    "-a",
    `site=${site}`,
    "-a",
    `spin=${spin}`,
    "-O",
    lines,
    "-O",
    json,
    "--stats-file",
    stats,
    "-s",
    "obey_robots_txt=false",
  ]);
  await crawl.waitFor(/spinning in a callback/);
  return { crawl, lines, json, stats };
}

/** The items in a JSON Lines feed, every line whole. */
async function jsonLines(path: string): Promise<unknown[]> {
  const text = await readFile(path, "utf8");
  assert.ok(text === "" || text.endsWith("\n"), `the last line is cut: ${JSON.stringify(text)}`);
  return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
}

/**
 * A JSON feed whose process was ended before it closed: `[` and the items written, without the `]` (what
 * docs/crawling.md tells a reader to expect), so that adding the end makes it whole.
 */
async function unclosedJson(path: string): Promise<unknown[]> {
  const text = await readFile(path, "utf8");
  assert.ok(!text.trimEnd().endsWith("]"), "the JSON feed was closed after all");
  return JSON.parse(text + "\n]");
}

const sortedN = (items: unknown[]) => items.map((item) => (item as { n: string }).n).sort();

async function secondSigintEndsIt(runner: Runner): Promise<void> {
  const site = await startFixtureSite({ books: 0 });
  try {
    await withTempDir(async (dir) => {
      const { crawl, lines, json } = await spinningCrawl(runner, dir, site.url, "forever");
      await crawl.kill("SIGINT");
      // The first one cannot reach the main thread, which never gets free; the second ends the process anyway.
      await sleep(300);
      await crawl.kill("SIGINT");
      const result = await crawl.wait();
      assert.equal(result.signal, "SIGINT", `${JSON.stringify(result.code)}\n${result.stderr}`);
      assert.match(result.stderr, /WARNING second SIGINT: stopping at once/);
      // The pages done before the spin have their items in both feeds, and no line is cut.
      assert.deepEqual(sortedN(await jsonLines(lines)), ["1", "2"]);
      assert.deepEqual(sortedN(await unclosedJson(json)), ["1", "2"]);
    });
  } finally {
    await site.close();
  }
}

async function sigtermEndsIt(runner: Runner): Promise<void> {
  const site = await startFixtureSite({ books: 0 });
  try {
    await withTempDir(async (dir) => {
      const { crawl, lines } = await spinningCrawl(runner, dir, site.url, "forever");
      await crawl.kill("SIGTERM");
      const result = await crawl.wait();
      assert.equal(result.signal, "SIGTERM", `${JSON.stringify(result.code)}\n${result.stderr}`);
      assert.match(result.stderr, /WARNING SIGTERM: the main thread has run nothing for 5 s/);
      assert.deepEqual(sortedN(await jsonLines(lines)), ["1", "2"]);
    });
  } finally {
    await site.close();
  }
}

Deno.test("a first SIGINT stops a crawl whose callback spins, cleanly, once the callback returns", async () => {
  const site = await startFixtureSite({ books: 0 });
  try {
    await withTempDir(async (dir) => {
      const { crawl, json, stats } = await spinningCrawl(denoRunner, dir, site.url, "3000");
      await crawl.kill("SIGINT");
      const result = await crawl.wait();
      assert.equal(result.code, 130, result.stderr);
      // Closed as after any first signal: the JSON whole, the stats written. The signal reached the main thread once
      // the callback had returned, with its item: that page was done, and its item is kept.
      assert.deepEqual(sortedN(JSON.parse(await readFile(json, "utf8"))), ["1", "2", "slow"]);
      assert.equal(JSON.parse(await readFile(stats, "utf8")).finish_reason, "shutdown");
      assert.doesNotMatch(result.stderr, /stopping at once/);
    });
  } finally {
    await site.close();
  }
});

Deno.test("a second SIGINT ends a crawl whose callback spins for ever; the feeds keep what was written", async () => {
  await secondSigintEndsIt(denoRunner);
});

Deno.test("a SIGTERM ends a crawl whose callback spins for ever once its main thread has run nothing for 5 s", async () => {
  await sigtermEndsIt(denoRunner);
});

Deno.test("a second SIGINT ends a crawl whose start() spins from the outset, before anything was fetched", async () => {
  await withTempDir(async (dir) => {
    // The crawl starts only once the signal thread listens: a main thread busy this early would otherwise keep
    // listening itself, and never let the thread start.
    const crawl = denoRunner.start([
      "crawl",
      await denoRunner.spiderFile(dir),
      "-a",
      "site=http://127.0.0.1:1/",
      "-a",
      "spin=start",
    ]);
    await crawl.waitFor(/spinning in start\(\)/);
    await crawl.kill("SIGINT");
    await sleep(300);
    await crawl.kill("SIGINT");
    const result = await crawl.wait();
    assert.equal(result.signal, "SIGINT", `${JSON.stringify(result.code)}\n${result.stderr}`);
    assert.match(result.stderr, /WARNING second SIGINT: stopping at once/);
  });
});

Deno.test("on Node 22 a second SIGINT, or one SIGTERM, ends a crawl whose callback spins for ever", async () => {
  const pkg = await installBuiltPackage();
  try {
    const runner = nodeRunner(pkg.dir);
    await secondSigintEndsIt(runner);
    await sigtermEndsIt(runner);
  } finally {
    await pkg.remove();
  }
});
