/**
 * Where a crawl's CPU goes, thread by thread, on Linux: one Netweir crawl of the link shop (scripts/bench/link_shop.ts,
 * served by nginx on 127.0.0.1) and, beside it, the bare loop (scripts/bench/bare_crawl.mjs), each with the CPU time of
 * each of its threads (the crawl's own, a callback worker's, V8's helpers) and of the nginx worker that served it.
 * Prints; asserts nothing. For looking inside a figure of scripts/bench/crawl.ts, not for the figures themselves.
 *
 *   deno run -A scripts/bench/threads.ts [PRODUCTS=20000] [--css] [-- NETWEIR ARGS...]
 *   deno run -A scripts/bench/threads.ts 20000 -- -s workers=1
 *
 * The crawl is the links spider (`--css`: the css one) with crawl.ts's settings on Deno, with the crawl's V8 heap
 * settings. CPU times come from /proc/PID/task/TID/schedstat, read every 50 ms while the process runs (nanoseconds,
 * which the tick-based /proc stat files round away on a virtual machine); a thread that ends between two reads loses
 * its last 50 ms. V8's CPU profiler is no help here: it samples each thread on a wall-clock timer, so a thread that is
 * ready to run but waiting for a core is charged to whatever it was doing.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../../tests/helpers/cli.ts";
import { denoRuntime } from "../../src/runtime/deno.ts";
import { writeLinkShop } from "./link_shop.ts";
import { serveDirectory } from "./static_server.ts";

const dashes = Deno.args.indexOf("--");
const own = dashes === -1 ? Deno.args : Deno.args.slice(0, dashes);
const extra = dashes === -1 ? [] : Deno.args.slice(dashes + 1);
const products = Number(own.find((arg) => !arg.startsWith("--")) ?? 20_000);
const spider = own.includes("--css") ? "shop_css_spider.ts" : "shop_links_spider.ts";
const bench = join(REPO_ROOT, "scripts", "bench");

/** CPU seconds of each thread of `pid` so far, by thread id: name and seconds. */
async function threadTimes(pid: number, into: Map<string, { name: string; seconds: number }>): Promise<void> {
  let tasks: string[];
  try {
    tasks = await readdir(`/proc/${pid}/task`);
  } catch {
    return; // ended
  }
  for (const tid of tasks) {
    try {
      const [schedstat, comm] = await Promise.all([
        readFile(`/proc/${pid}/task/${tid}/schedstat`, "utf8"),
        readFile(`/proc/${pid}/task/${tid}/comm`, "utf8"),
      ]);
      into.set(tid, { name: comm.trim(), seconds: Number(schedstat.split(" ")[0]) / 1e9 });
    } catch {
      // The thread ended meanwhile.
    }
  }
}

/** User + system seconds of a process so far, from its stat file (clock ticks of 10 ms). */
async function processSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).replace(/^.*\) /, "").split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The nginx worker: the child of the master `pid`. */
async function childOf(pid: number): Promise<number | undefined> {
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.replace(/^.*\) /, "").split(" ")[1]) === pid) return Number(entry);
    } catch {
      // Gone.
    }
  }
  return undefined;
}

async function measure(label: string, command: string, args: string[], cwd: string, server: number | undefined) {
  const serverBefore = server === undefined ? 0 : await processSeconds(server);
  const started = performance.now();
  const child = new Deno.Command(command, { args, cwd, stdout: "null", stderr: "piped" }).spawn();
  const threads = new Map<string, { name: string; seconds: number }>();
  let running = true;
  const status = child.status.finally(() => running = false);
  while (running) {
    await threadTimes(child.pid, threads);
    await Promise.race([status, new Promise((resolve) => setTimeout(resolve, 50))]);
  }
  const { code } = await status;
  const wall = (performance.now() - started) / 1000;
  if (code !== 0) {
    const stderr = new TextDecoder().decode(await new Response(child.stderr).arrayBuffer());
    throw new Error(`${label} failed (exit ${code}): ${stderr.slice(-2000)}`);
  }
  const byName = new Map<string, number[]>();
  for (const { name, seconds } of threads.values()) byName.set(name, [...(byName.get(name) ?? []), seconds]);
  const all = [...threads.values()].reduce((sum, thread) => sum + thread.seconds, 0);
  console.log(`${label}: ${wall.toFixed(2)} s on the clock, ${all.toFixed(2)} CPU s in all its threads`);
  for (const [name, times] of [...byName].sort((a, b) => Math.max(...b[1]) - Math.max(...a[1]))) {
    const total = times.reduce((sum, seconds) => sum + seconds, 0);
    if (total < 0.05) continue;
    const each = times.length > 1 ? ` (${times.length} threads: ${times.map((s) => s.toFixed(2)).join(", ")})` : "";
    console.log(`  ${name.padEnd(18)} ${total.toFixed(2).padStart(6)} CPU s${each}`);
  }
  if (server !== undefined) {
    console.log(
      `  ${"nginx worker".padEnd(18)} ${((await processSeconds(server)) - serverBefore).toFixed(2).padStart(6)} CPU s`,
    );
  }
}

const work = await mkdtemp(join(tmpdir(), "netweir-bench-threads-"));
const server = await serveDirectory(join(work, "site"), work);
try {
  await writeLinkShop(join(work, "site"), products, server.url.replace(/\/$/, ""));
  const nginxWorker = server.pid === undefined ? undefined : await childOf(server.pid);
  const items = join(work, "items.jsonl");
  const self = denoRuntime.selfCommand(join(REPO_ROOT, "cli.ts"));
  const crawl = [
    ...self.args,
    "crawl",
    join(bench, spider),
    "-a",
    `site=${server.url}`,
    "-O",
    items,
    ...["profile=fast", "per_domain=64", "log_level=warning"].flatMap((setting) => ["-s", setting]),
    ...extra,
  ];
  // Once unmeasured, so that compiling the sources is not in the figures.
  await measure("warm-up", self.command, [...crawl, "-s", "max_pages=200"], REPO_ROOT, undefined);
  console.log("");
  await measure(`netweir, ${spider} ${extra.join(" ")}`.trim(), self.command, crawl, REPO_ROOT, nginxWorker);
  await measure(
    "bare loop",
    Deno.execPath(),
    ["run", "-A", join(bench, "bare_crawl.mjs"), server.url, items],
    bench,
    nginxWorker,
  );
} finally {
  await server.stop();
  await rm(work, { recursive: true, force: true });
}
