/**
 * A broad crawl: many small sites, a few pages each, crawled politely at high concurrency. Prints; asserts nothing.
 *
 *   deno run -A scripts/bench/broad.ts [SITES=2000] [LATENCY_MS=100] [--pages=25] [--only=bare,netweir,...]
 *                                      [--skip-scrapy] [--skip-bare] [--skip-auto] [--scrapy-seconds=180] [--cpu-prof]
 *                                      [--names]
 *
 * 20,000 sites in a few minutes: `deno run -A scripts/bench/broad.ts 20000 --pages=5 --only=bare,netweir`.
 *
 * The sites (scripts/bench/broad_sites.ts): SITES sites of --pages pages, each at its own 127.x.y.z address, every page
 * linking within its site and to two other sites, a robots.txt on each (disallowing a link every page has), every
 * answer held back LATENCY_MS; one site in 50 three times slower, one in 50 failing with 503, one in 100 without
 * robots.txt. One Deno.serve process serves them all; its CPU is measured and printed, to show it is not what binds.
 * The seeds are every site's home page.
 *
 * Three crawlers, one after the other, at concurrency=1000 and per_domain=2, robots.txt obeyed:
 * - bare: scripts/bench/broad_bare.mjs, the least such a crawler can do (no retries, stats, items);
 * - netweir: scripts/bench/broad_spider.ts (a Scrapy-tutorial spider: an item a page, every link followed) as
 *   `netweir crawl` runs it, through broad_netweir.ts (the command line's assembly, plus a line of the crawl's
 *   per-host state every second), with `-s concurrency=1000 -s per_domain=2 -s retries=0 -s timeout=15
 *   -s log_level=warning -s autothrottle=false` (as Scrapy, whose AutoThrottle is off by default), items to a JSON
 *   Lines file;
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
 * by Little's law, how many requests it kept in flight on average. Under it, the RSS and open sockets of the
 * crawler's processes over the run (from /proc, once a second; a few samples printed), and for Netweir what the
 * crawl kept per host (Crawl.hostState()) at the same moments and at its end. --only=LIST runs only the crawlers
 * named (bare, netweir, nw-auto, scrapy). --cpu-prof writes V8 profiles of the Netweir crawls to the working
 * directory.
 *
 * --names: the sites are named (site-1.test ...) instead of addressed, their links name each other, and a DNS server
 * in this process (tests/helpers/dns_server.ts, UDP on 127.0.0.1, every name's A record its 127.x.y.z address with a
 * TTL of 300 s) answers for them, each answer 5 ms late as from a resolver on the local network; Netweir's crawls ask
 * it (`dns_servers`), and the queries it got are printed after each. Only Netweir runs then: the bare loop and Scrapy
 * resolve through the system, which knows no .test names.
 *
 * Open files: the server holds a socket per connection the crawler keeps, the crawler as many. Netweir keeps at
 * most `concurrency` busy and 512 idle (src/runtime/h1/client.ts); the bare loop's node:http agent closes an idle
 * socket after 4 s as Netweir's client does (without it, it kept one per host for ever: 20,000 sites would need
 * more than the 20,000 files a process may open here). The limit is printed at the start.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, readlink, rm, stat, writeFile } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../../tests/helpers/cli.ts";
import { DEFAULT_PAGES, siteAddress, siteKind, siteName } from "./broad_sites.ts";
import { type DnsServer, startDnsServer } from "../../tests/helpers/dns_server.ts";
import { type Measured, timed } from "./timed.ts";

const args = Deno.args.filter((arg) => !arg.startsWith("--"));
const sites = Number(args[0] ?? 2000);
const latencyMs = Number(args[1] ?? 100);
const flag = (name: string) => Deno.args.find((arg) => arg.startsWith(`--${name}=`))?.split("=")[1];
const names = Deno.args.includes("--names");
/** With --names only Netweir runs: the others resolve through the system, which knows no .test names. */
const only = names ? ["netweir", "nw-auto"] : flag("only")?.split(",");
/** Whether a crawler is left out: `--skip-NAME` (auto for nw-auto), or --only without it. */
const skip = (name: string) =>
  Deno.args.includes(`--skip-${name === "nw-auto" ? "auto" : name}`) || (only !== undefined && !only.includes(name));
/** Scrapy is stopped after this long (CLOSESPIDER_TIMEOUT): on this machine it crawls far slower than the others. */
const scrapySeconds = Number(flag("scrapy-seconds") ?? 180);
const pagesPerSite = Number(flag("pages") ?? DEFAULT_PAGES);
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

/** Resident memory of a process in bytes (VmRSS), 0 once it has gone. */
async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
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

/** One sample of a running crawler: seconds since its start, its processes' RSS (MB) and open sockets. */
interface Sample {
  seconds: number;
  rssMb: number;
  sockets: number;
}

/** What `run` measured beside GNU time's figures. */
interface Sampled {
  /** The most sockets the crawler's processes held open at once. */
  sockets: number;
  /** Every second: RSS and sockets. */
  samples: Sample[];
  /** CPU seconds of the busiest main thread among them (the crawler's event loop), as last sampled. */
  mainCpu: number;
  /**
   * Every quarter second: seconds since the start, that main thread's CPU seconds and seconds waiting for a core, and
   * the bytes of items written.
   */
  progress: Array<{ at: number; cpu: number; wait: number; bytes: number }>;
}

type Run = Measured & Sampled;

/**
 * Runs a crawler under GNU time, counting its process tree's open sockets and RSS every second (the tree itself is
 * looked up every five: walking /proc costs this process CPU the crawler should have) and reading its main threads'
 * CPU every quarter second (the last reading stands for the whole run: at most a quarter second of it is missed).
 */
async function run(command: string, commandArgs: string[], cwd: string, itemsFile?: string): Promise<Run> {
  let sockets = 0;
  const mainCpu = new Map<number, number>();
  const mainWait = new Map<number, number>();
  const progress: Sampled["progress"] = [];
  let sampling = true;
  const samples: Sample[] = [];
  const before = new Set(await processTree(Deno.pid));
  const started = performance.now();
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
        progress.push({
          at: (performance.now() - started) / 1000,
          cpu: mainCpu.get(busiest) ?? 0,
          wait: mainWait.get(busiest) ?? 0,
          bytes: (await stat(itemsFile).catch(() => undefined))?.size ?? 0,
        });
      }
      if (tick % 4 !== 0) continue;
      let open = 0;
      let rss = 0;
      for (const pid of tree) {
        open += await openSockets(pid);
        rss += await rssOf(pid);
      }
      sockets = Math.max(sockets, open);
      if (sampling) samples.push({ seconds: (performance.now() - started) / 1000, rssMb: rss / 1e6, sockets: open });
    }
  })();
  const result = await measured;
  sampling = false;
  await sampler;
  return { ...result, sockets, samples, mainCpu: Math.max(0, ...mainCpu.values()), progress };
}

/** About `count` of `list`, evenly spread, the last always among them. */
function spread<T>(list: T[], count: number): T[] {
  if (list.length <= count) return list;
  const step = list.length / count;
  return Array.from({ length: count }, (_, i) => list[Math.min(list.length - 1, Math.round((i + 1) * step) - 1)]);
}

/** A line of the crawler's RSS and sockets over the run. */
function reportSamples(samples: Sample[]): void {
  const points = spread(samples, 8).map((s) => `${fixed(s.seconds, 0)} s ${fixed(s.rssMb, 0)} MB/${s.sockets}`);
  console.log(`         RSS/sockets over time: ${points.join(", ")}`);
}

/** Netweir's per-host state lines (broad_netweir.ts): a few over the run, the largest of each figure, the last. */
function reportHostState(stdout: string): void {
  const states = stdout.split("\n").filter((line) => line.startsWith("state ")).map((line) =>
    JSON.parse(line.slice(6)) as Record<string, number>
  );
  if (states.length === 0) return;
  const keys = Object.keys(states[0]).filter((key) => key !== "seconds");
  const largest = Object.fromEntries(keys.map((key) => [key, Math.max(...states.map((state) => state[key]))]));
  const show = (state: Record<string, number>) => keys.map((key) => `${key} ${state[key]}`).join(", ");
  for (const state of spread(states.slice(0, -1), 4)) {
    console.log(`         at ${fixed(state.seconds, 0)} s: ${show(state)}`);
  }
  console.log(`         largest: ${show(largest)}`);
  console.log(`         at the end (after a full GC): ${show(states.at(-1)!)}`);
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
function middle(pages: number, samples: Sampled["progress"]): string {
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

function report(name: string, fetched: Fetched, result: Run, serverCpu: number): void {
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
      `(of at most ${maxInFlight})` + middle(pages, result.progress) +
      (result.code === 0 ? "" : `; exit ${result.code}`),
  );
  reportSamples(result.samples);
}

const dir = await mkdtemp(join(tmpdir(), "netweir-broad-"));
let dns: DnsServer | undefined;
const server = spawn(Deno.execPath(), [
  "run",
  "-A",
  join(REPO_ROOT, "scripts/bench/broad_sites.ts"),
  String(sites),
  String(latencyMs),
  String(pagesPerSite),
  ...(names ? ["--names"] : []),
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
  const hostOf = names ? siteName : siteAddress;
  await writeFile(seeds, Array.from({ length: sites }, (_, i) => `http://${hostOf(i)}:${port}/\n`).join(""));
  dns = names
    ? await startDnsServer(Object.fromEntries(
      Array.from({ length: sites }, (_, i) => [siteName(i), { a: [siteAddress(i)], ttl: 300, delayMs: 5 }]),
    ))
    : undefined;
  const kinds = Array.from({ length: sites }, (_, i) => siteKind(i));
  const expected = kinds.filter((kind) => kind !== "failing").length * pagesPerSite;
  const openFiles = /Max open files\s+(\d+)/.exec(await readFile("/proc/self/limits", "utf8"))?.[1];
  console.log(
    `${sites} sites x ${pagesPerSite} pages (${expected} fetchable, ${
      kinds.filter((k) => k === "failing").length
    } sites ` +
      `failing, ${kinds.filter((k) => k === "slow").length} three times slower), ${latencyMs} ms a response; ` +
      `concurrency=${CONCURRENCY} per_domain=${PER_DOMAIN}; ${cores} cores, shared (load average ` +
      `${(await readFile("/proc/loadavg", "utf8")).split(" ")[0]} at start); open files at most ${openFiles} a process`,
  );

  if (!skip("bare") && sites * 0.8 > Number(openFiles)) {
    // It held 17,215 sockets at once at 20,000 sites, its FIFO opening a connection to nearly every host at the start.
    console.log(
      `the bare loop may run out of open files at ${sites} sites: raise ulimit -n (hard limit) past ${sites}`,
    );
  }
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
    return result;
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
  const netweir = async (name: string, extra: string[]) => {
    const result = await measure(
      name,
      Deno.execPath(),
      [
        "run",
        "-A",
        "--v8-flags=--expose-gc",
        ...profile,
        join(REPO_ROOT, "scripts/bench/broad_netweir.ts"),
        seeds,
        join(dir, `${name}.jsonl`),
        ...[`concurrency=${CONCURRENCY}`, `per_domain=${PER_DOMAIN}`, "retries=0", "timeout=15", "log_level=warning"],
        ...(dns ? [`dns_servers=${dns.address}`] : []),
        ...extra,
      ],
      () => itemsIn(`${name}.jsonl`),
      `${name}.jsonl`,
    );
    reportHostState(result.stdout);
    if (dns) console.log(`         DNS queries so far: ${dns.total()}, for ${sites} names`);
  };
  // Scrapy's AutoThrottle is off unless asked for, and its Broad Crawls page does not ask; Netweir's is on by
  // default. Both are measured: "netweir" as Scrapy runs, "nw-auto" with Netweir's defaults.
  if (!skip("netweir")) await netweir("netweir", ["autothrottle=false"]);
  if (!skip("nw-auto")) await netweir("nw-auto", []);
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
  await dns?.close();
  server.kill("SIGKILL");
  await rm(dir, { recursive: true, force: true });
}
