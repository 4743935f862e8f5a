/**
 * A broad crawl: many small sites, a few pages each, crawled politely at high concurrency. Prints; asserts nothing.
 *
 *   deno run -A scripts/bench/broad.ts [SITES=2000] [LATENCY_MS=100] [--skip-scrapy] [--skip-bare] [--skip-auto]
 *                                      [--scrapy-seconds=180] [--cpu-prof]
 *
 * The sites (scripts/bench/broad_sites.ts): SITES sites of 25 pages, each at its own 127.x.y.z address, every page
 * linking within its site and to two other sites, a robots.txt on each (disallowing a link every page has), every
 * answer held back LATENCY_MS; one site in 50 three times slower, one in 50 failing with 503, one in 100 without
 * robots.txt. One Deno.serve process serves them all; its CPU is measured and printed, to show it is not what binds.
 * The seeds are every site's home page.
 *
 * Three crawlers, one after the other, at concurrency=1000 and per_domain=2, robots.txt obeyed:
 * - bare: scripts/bench/broad_bare.mjs, the least such a crawler can do (no retries, stats, items);
 * - netweir: `netweir crawl scripts/bench/broad_spider.ts` (a Scrapy-tutorial spider: an item a page, every link
 *   followed), with `-s concurrency=1000 -s per_domain=2 -s retries=0 -s timeout=15 -s log_level=warning
 *   -s autothrottle=false` (as Scrapy, whose AutoThrottle is off by default), items to a JSON Lines file;
 * - nw-auto: the same with Netweir's default autothrottle on (--skip-auto leaves it out);
 * - scrapy: Scrapy 2.8 (python3-scrapy) running the same spider (broad_scrapy.py) with the settings of its "Broad
 *   Crawls" page, CONCURRENT_REQUESTS=1000, CONCURRENT_REQUESTS_PER_DOMAIN=2, stopped after --scrapy-seconds=N
 *   (default 180; its pages/s is over the time it ran).
 *
 * For each: pages, pages/s (over the wall time, start-up included) against the latency limit (concurrency /
 * latency, the most the politeness and latency allow if nothing else binds), CPU seconds and the CPU limit it
 * implies (cores / CPU seconds per page), the main thread's CPU seconds and its limit (pages / those seconds: the
 * crawl loop is one thread, so this is the limit that binds a single crawl process), peak RSS, the most sockets it
 * held open at once, the server's CPU over
 * the run, the latency the crawler saw (the server's plus the time a loaded machine takes to run both sides) and,
 * by Little's law, how many requests it kept in flight on average. --cpu-prof writes V8 profiles of the Netweir
 * crawls to the working directory.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, readlink, rm, stat, writeFile } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../../tests/helpers/cli.ts";
import { PAGES, siteAddress, siteKind } from "./broad_sites.ts";
import { type Measured, timed } from "./timed.ts";

const args = Deno.args.filter((arg) => !arg.startsWith("--"));
const sites = Number(args[0] ?? 2000);
const latencyMs = Number(args[1] ?? 100);
const skip = (what: string) => Deno.args.includes(`--skip-${what}`);
/** Scrapy is stopped after this long (CLOSESPIDER_TIMEOUT): on this machine it crawls far slower than the others. */
const scrapySeconds = Number(Deno.args.find((arg) => arg.startsWith("--scrapy-seconds="))?.split("=")[1] ?? 180);
const CONCURRENCY = 1000;
const PER_DOMAIN = 2;

/** The server's CPU seconds so far (utime + stime of /proc/PID/stat). */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ is 100 on Linux
}

/** Open TCP sockets of a process: its fds that are sockets (the crawler opens no others in numbers). */
async function openSockets(pid: number): Promise<number> {
  let count = 0;
  try {
    for (const fd of await readdir(`/proc/${pid}/fd`)) {
      if ((await readlink(`/proc/${pid}/fd/${fd}`).catch(() => "")).startsWith("socket:")) count++;
    }
  } catch {
    // The process has gone.
  }
  return count;
}

/**
 * CPU seconds of a process's main thread (the JavaScript event loop of a Deno or Node crawler, or Python's): its task
 * whose id is the pid. 0 once the process has gone.
 */
async function mainThreadCpu(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/task/${pid}/stat`, "utf8").catch(() => "");
  if (stat === "") return 0;
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Seconds a process's main thread has waited, runnable, for a core (the second field of its schedstat): on a shared
 * machine, time it wanted CPU and did not get, which its CPU seconds alone do not show.
 */
async function mainThreadWait(pid: number): Promise<number> {
  const text = await readFile(`/proc/${pid}/task/${pid}/schedstat`, "utf8").catch(() => "");
  return text === "" ? 0 : Number(text.split(" ")[1]) / 1e9;
}

/** The pids of `root` and all its descendants. */
async function processTree(root: number): Promise<number[]> {
  const children = new Map<number, number[]>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid)!.push(Number(entry));
  }
  const all: number[] = [];
  const walk = (pid: number) => {
    all.push(pid);
    for (const child of children.get(pid) ?? []) walk(child);
  };
  walk(root);
  return all;
}

/** What `run` measured beside GNU time's figures. */
interface Sampled {
  /** The most sockets the crawler's processes held open at once. */
  sockets: number;
  /** CPU seconds of the busiest main thread among them (the crawler's event loop), as last sampled. */
  mainCpu: number;
  /**
   * Every quarter second: seconds since the start, that main thread's CPU seconds and seconds waiting for a core, and
   * the bytes of items written.
   */
  samples: Array<{ at: number; cpu: number; wait: number; bytes: number }>;
}

/**
 * Runs a crawler under GNU time, counting its process tree's open sockets every second (the tree itself is looked
 * up every five: walking /proc costs this process CPU the crawler should have) and reading its main threads' CPU
 * every quarter second (the last reading stands for the whole run: at most a quarter second of it is missed).
 */
async function run(
  command: string,
  commandArgs: string[],
  cwd: string,
  itemsFile?: string,
): Promise<Measured & Sampled> {
  let sockets = 0;
  const mainCpu = new Map<number, number>();
  const mainWait = new Map<number, number>();
  const samples: Sampled["samples"] = [];
  const started = performance.now();
  let sampling = true;
  const before = new Set(await processTree(Deno.pid));
  const measured = timed(command, commandArgs, { cwd });
  const sampler = (async () => {
    let tree: number[] = [];
    for (let tick = 0; sampling; tick++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      if (tick % 20 === 0 || tree.length < 2) tree = (await processTree(Deno.pid)).filter((pid) => !before.has(pid));
      for (const pid of tree) {
        mainCpu.set(pid, Math.max(mainCpu.get(pid) ?? 0, await mainThreadCpu(pid)));
        mainWait.set(pid, Math.max(mainWait.get(pid) ?? 0, await mainThreadWait(pid)));
      }
      if (itemsFile !== undefined) {
        // The busiest main thread is the crawler's (GNU time's own is next to idle).
        const busiest = [...mainCpu].reduce((best, entry) => entry[1] > best[1] ? entry : best, [0, 0])[0];
        samples.push({
          at: (performance.now() - started) / 1000,
          cpu: mainCpu.get(busiest) ?? 0,
          wait: mainWait.get(busiest) ?? 0,
          bytes: (await stat(itemsFile).catch(() => undefined))?.size ?? 0,
        });
      }
      if (tick % 4 !== 0) continue;
      let open = 0;
      for (const pid of tree) open += await openSockets(pid);
      sockets = Math.max(sockets, open);
    }
  })();
  const result = await measured;
  sampling = false;
  await sampler;
  return { ...result, sockets, mainCpu: Math.max(0, ...mainCpu.values()), samples };
}

const cores = cpus().length;
const limit = CONCURRENCY / (latencyMs / 1000);
const fixed = (value: number, digits = 1) => value.toFixed(digits);

/** What a crawl fetched: its pages, and the seconds their responses took, added up. */
interface Fetched {
  pages: number;
  latencySum: number;
}

/**
 * The middle of a crawl, from the sample where a tenth of its items were written to the last before nine tenths:
 * pages/s there, and how busy the main thread was. A crawl of a few seconds spends a good part of them starting
 * (robots.txt, then the first pages, each a round trip) and finishing (the last sites' last pages); the middle is
 * what a crawl of hours runs at.
 */
function middle(pages: number, samples: Sampled["samples"]): string {
  const total = samples.at(-1)?.bytes ?? 0;
  const from = samples.find((sample) => sample.bytes >= total / 10);
  const to = samples.findLast((sample) => sample.bytes <= (total * 9) / 10);
  if (total === 0 || !from || !to || to.at - from.at < 1) return "";
  const seconds = to.at - from.at;
  const rate = (pages * (to.bytes - from.bytes)) / total / seconds;
  const share = (value: number) => fixed((100 * value) / seconds, 0);
  return `; middle 80% of pages: ${fixed(rate, 0)} pages/s, main thread running ${share(to.cpu - from.cpu)}% ` +
    `of the time and waiting for a core ${share(to.wait - from.wait)}%`;
}

function report(name: string, fetched: Fetched, result: Measured & Sampled, serverCpu: number): void {
  const pages = fetched.pages;
  const rate = pages / result.wall;
  // Little's law: the requests in flight on average, and the latency they saw (the server's LATENCY_MS plus the
  // time the machine took to run the server and the crawler).
  const inFlight = fetched.latencySum / result.wall;
  const maxInFlight = Math.min(CONCURRENCY, sites * PER_DOMAIN);
  const cpuLimit = cores / (result.cpu / pages);
  // The crawl loop is one thread: at its CPU per page it cannot go faster than pages / its CPU seconds, whatever the
  // cores. Its share of the wall time is how near that limit the crawl ran.
  const threadLimit = pages / result.mainCpu;
  console.log(
    `${name.padEnd(8)} ${String(pages).padStart(6)} pages in ${fixed(result.wall).padStart(5)} s: ` +
      `${fixed(rate, 0).padStart(5)} pages/s (${fixed((100 * rate) / limit).padStart(4)}% of the latency limit ` +
      `${limit}, ${fixed((100 * rate) / cpuLimit).padStart(4)}% of its CPU limit ${fixed(cpuLimit, 0)} on ` +
      `${cores} cores, ${fixed((100 * rate) / threadLimit).padStart(4)}% of its main thread's ${
        fixed(threadLimit, 0)
      }); ` +
      `CPU ${fixed(result.cpu)} s (${fixed((1000 * result.cpu) / pages, 2)} ms/page; main thread ` +
      `${fixed(result.mainCpu)} s), peak RSS ` +
      `${fixed(result.peakMb, 0)} MB, sockets at most ${result.sockets}; server CPU ${fixed(serverCpu)} s; ` +
      `latency seen ${fixed((1000 * fetched.latencySum) / pages, 0)} ms, ${fixed(inFlight, 0)} in flight on average ` +
      `(of at most ${maxInFlight})` + middle(pages, result.samples) +
      (result.code === 0 ? "" : `; exit ${result.code}`),
  );
}

const dir = await mkdtemp(join(tmpdir(), "netweir-broad-"));
const server = spawn(Deno.execPath(), [
  "run",
  "-A",
  join(REPO_ROOT, "scripts/bench/broad_sites.ts"),
  String(sites),
  String(latencyMs),
], {
  stdio: ["ignore", "pipe", "inherit"],
});
try {
  const port = await new Promise<number>((resolve, reject) => {
    server.stdout!.setEncoding("utf8").on("data", (text: string) => {
      const match = /port (\d+)/.exec(text);
      if (match) resolve(Number(match[1]));
    });
    server.once("exit", (code) => reject(new Error(`the site server exited ${code}`)));
  });
  const seeds = join(dir, "seeds.txt");
  await writeFile(seeds, Array.from({ length: sites }, (_, i) => `http://${siteAddress(i)}:${port}/\n`).join(""));
  const kinds = Array.from({ length: sites }, (_, i) => siteKind(i));
  const expected = kinds.filter((kind) => kind !== "failing").length * PAGES;
  console.log(
    `${sites} sites x ${PAGES} pages (${expected} fetchable, ${kinds.filter((k) => k === "failing").length} sites ` +
      `failing, ${kinds.filter((k) => k === "slow").length} three times slower), ${latencyMs} ms a response; ` +
      `concurrency=${CONCURRENCY} per_domain=${PER_DOMAIN}; ${cores} cores, shared (load average ` +
      `${(await readFile("/proc/loadavg", "utf8")).split(" ")[0]} at start)`,
  );

  const serverPid = server.pid!;
  const measure = async (
    name: string,
    command: string,
    commandArgs: string[],
    fetchedBy: (m: Measured) => Fetched | Promise<Fetched>,
    itemsFile?: string,
  ) => {
    const cpuBefore = await cpuSeconds(serverPid);
    const result = await run(command, commandArgs, dir, itemsFile && join(dir, itemsFile));
    const serverCpu = await cpuSeconds(serverPid) - cpuBefore;
    if (result.code !== 0) console.log(result.stderr.slice(-1500));
    report(name, await fetchedBy(result), result, serverCpu);
  };
  // One item a page fetched, with the latency the crawler saw.
  const itemsIn = async (file: string): Promise<Fetched> => {
    const items = (await readFile(join(dir, file), "utf8")).split("\n").filter((line) => line !== "");
    const latencySum = items.reduce((sum, line) => sum + (JSON.parse(line).latency ?? 0), 0);
    return { pages: items.length, latencySum };
  };

  if (!skip("bare")) {
    await measure(
      "bare",
      Deno.execPath(),
      ["run", "-A", join(REPO_ROOT, "scripts/bench/broad_bare.mjs"), seeds, String(CONCURRENCY), String(PER_DOMAIN)],
      (m) => JSON.parse(m.stdout.trim().split("\n").at(-1)!),
    );
  }
  const profile = Deno.args.includes("--cpu-prof") ? ["--cpu-prof", `--cpu-prof-dir=${Deno.cwd()}`] : [];
  const netweir = (name: string, extra: string[]) =>
    measure(name, Deno.execPath(), [
      "run",
      "-A",
      ...profile,
      join(REPO_ROOT, "cli.ts"),
      "crawl",
      join(REPO_ROOT, "scripts/bench/broad_spider.ts"),
      "-a",
      `seeds=${seeds}`,
      ...["-s", `concurrency=${CONCURRENCY}`, "-s", `per_domain=${PER_DOMAIN}`, "-s", "retries=0", "-s", "timeout=15"],
      ...["-s", "log_level=warning", ...extra, "-O", `${name}.jsonl`],
    ], () =>
      itemsIn(`${name}.jsonl`), `${name}.jsonl`);
  // Scrapy's AutoThrottle is off unless asked for, and its Broad Crawls page does not ask; Netweir's is on by
  // default. Both are measured: "netweir" as Scrapy runs, "nw-auto" with Netweir's defaults.
  await netweir("netweir", ["-s", "autothrottle=false"]);
  if (!skip("auto")) await netweir("nw-auto", []);
  if (!skip("scrapy")) {
    await measure(
      "scrapy",
      "/usr/bin/scrapy",
      [
        "runspider",
        join(REPO_ROOT, "scripts/bench/broad_scrapy.py"),
        "-a",
        `seeds=${seeds}`,
        ...["-s", `CONCURRENT_REQUESTS=${CONCURRENCY}`, "-s", `CONCURRENT_REQUESTS_PER_DOMAIN=${PER_DOMAIN}`],
        ...["-s", "LOG_LEVEL=WARNING", "-s", `CLOSESPIDER_TIMEOUT=${scrapySeconds}`, "-O", "scrapy.jsonl"],
      ],
      () => itemsIn("scrapy.jsonl"),
      "scrapy.jsonl",
    ).catch((error) => console.log(`scrapy: ${error.message}`));
  }
} finally {
  server.kill("SIGKILL");
  await rm(dir, { recursive: true, force: true });
}
