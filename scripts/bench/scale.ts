/**
 * Costs that should stay flat as a crawl grows. Prints figures, asserts nothing.
 *
 *   deno run -A scripts/bench/scale.ts [frontier|hosts|checkpoint ...] [--src=DIR] [--requests=N] [--hosts=N]
 *
 * - frontier: RSS per waiting request with 1,000,000 start URLs (--requests) pushed into the memory frontier.
 * - hosts: a crawl of 1,000 hosts and one of 100,000 (--hosts), one page each with robots.txt obeyed, and the heap and
 *   RSS each leaves behind (the crawl still referenced, so what it keeps per host is counted). The hosts are
 *   127.x.y.z addresses: Linux routes all of 127.0.0.0/8 to the loopback interface, so one server, listening on
 *   0.0.0.0 and answering only connections from 127.0.0.0/8, stands in for all of them. Nothing leaves the machine.
 * - checkpoint: the SQLite checkpoint store driven as a crawl drives it (lease, finish with ten links of which about
 *   one is new) up to 1,000,000 requests (--requests), and the pages/s of its first and last 20,000 pages.
 *
 * Every part runs in a process of its own (with --expose-gc), so one's garbage is not another's figure. --src=DIR
 * runs the same parts against another copy of src/ (`git archive BASE src | tar -x -C /tmp/base` gives one), to
 * compare before and after.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";

const SELF = new URL(import.meta.url).pathname;
const flags = new Map(
  Deno.args.filter((arg) => arg.startsWith("--")).map((arg) => {
    const [name, value] = arg.slice(2).split("=");
    return [name, value ?? "true"] as [string, string];
  }),
);
const parts = Deno.args.filter((arg) => !arg.startsWith("--"));
const src = resolve(flags.get("src") ?? new URL("../../src", import.meta.url).pathname);
const number = (value: number, digits = 0) =>
  value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Collects garbage until the heap stops shrinking, and returns what is left (RSS and heap used). */
function settled(): { rss: number; heap: number } {
  const gc = (globalThis as unknown as { gc?: () => void }).gc;
  if (!gc) throw new Error("run the parts with --v8-flags=--expose-gc");
  let heap = Infinity;
  for (let i = 0; i < 10; i++) {
    gc();
    const now = Deno.memoryUsage().heapUsed;
    if (now >= heap * 0.999) break;
    heap = now;
  }
  const usage = Deno.memoryUsage();
  return { rss: usage.rss, heap: usage.heapUsed };
}

async function frontierPart(): Promise<void> {
  const count = Number(flags.get("requests") ?? 1_000_000);
  const { MemoryFrontier } = await import(`${src}/queue/memory.ts`);
  const { Request } = await import(`${src}/spider/request.ts`);
  const frontier = new MemoryFrontier();
  // One request of each kind first, so the code and the tables exist before the baseline.
  await frontier.push([new Request({ url: "https://warm.test/" })]);
  const before = settled();
  const started = performance.now();
  for (let i = 0; i < count; i += 1000) {
    const batch = [];
    for (let j = i; j < Math.min(count, i + 1000); j++) {
      batch.push(new Request({ url: `https://shop-${j % 5000}.example.test/catalogue/item-${j}/index.html` }));
    }
    await frontier.push(batch);
  }
  const pushSeconds = (performance.now() - started) / 1000;
  const after = settled();
  const waiting = (await frontier.status()).waiting - 1;
  console.log(`frontier: ${number(waiting)} start URLs waiting in the memory frontier (${src})`);
  console.log(`  RSS per waiting request   ${number((after.rss - before.rss) / waiting)} B`);
  console.log(`  heap per waiting request  ${number((after.heap - before.heap) / waiting)} B`);
  console.log(`  pushed in ${number(pushSeconds, 1)} s`);
  const leased = performance.now();
  let taken = 0;
  for (let leases = await frontier.lease(64); leases.length > 0; leases = await frontier.lease(64)) {
    for (const lease of leases) await frontier.finish(lease, []);
    taken += leases.length;
  }
  console.log(`  leased and finished ${number(taken)} in ${number((performance.now() - leased) / 1000, 1)} s`);
}

const mb = (bytes: number) => `${number(bytes / 1e6, 1)} MB`;

/** The i-th stand-in host: 127.1.0.0, 127.1.0.1, ... (all of 127.0.0.0/8 is the loopback interface). */
function hostAddress(i: number): string {
  return `127.${1 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`;
}

/**
 * The server every stand-in host is: on 0.0.0.0 (one socket for all of 127.0.0.0/8), answering only connections
 * from the loopback network. Each host has a robots.txt and a small page. Connections are closed after each answer:
 * a client keeping an idle connection to each of 100,000 hosts would run out of file descriptors first.
 */
function serverPart(): Promise<void> {
  const port = Number(flags.get("port"));
  const page = "<!doctype html><html><head><title>A host</title></head><body><p>One page.</p></body></html>";
  Deno.serve({ port, hostname: "0.0.0.0", onListen: () => console.log("ready") }, (request, info) => {
    const remote = (info.remoteAddr as Deno.NetAddr).hostname;
    if (!remote.startsWith("127.")) return new Response("loopback only", { status: 403 });
    const headers = { connection: "close", "content-type": "text/html" };
    if (new URL(request.url).pathname === "/robots.txt") {
      return new Response("User-agent: *\nDisallow: /private/\n", { headers });
    }
    return new Response(page, { headers });
  });
  return new Promise(() => {});
}

/** Crawls one page on each of --hosts hosts (robots.txt obeyed, cookies on: the defaults) and prints what is left. */
async function hostsPart(): Promise<void> {
  const count = Number(flags.get("hosts") ?? 100_000);
  const port = Number(flags.get("port"));
  const { Crawl } = await import(`${src}/engine/crawl.ts`);
  // Typed as this tree's modules: --src names a copy of the same source.
  const { Spider } = (await import(`${src}/spider/spider.ts`)) as typeof import("../../src/spider/spider.ts");
  const { Request } = (await import(`${src}/spider/request.ts`)) as typeof import("../../src/spider/request.ts");
  const { Settings } = await import(`${src}/settings/settings.ts`);
  const { resolveCrawlSettings } = await import(`${src}/settings/check.ts`);
  const { createLogger } = await import(`${src}/log.ts`);
  class Hosts extends Spider {
    constructor(private readonly first: number, private readonly hosts: number) {
      super();
    }
    override async *start() {
      for (let i = this.first; i < this.first + this.hosts; i++) yield new Request(`http://${hostAddress(i)}:${port}/`);
    }
    override parse() {}
  }
  const run = async (first: number, hosts: number) => {
    const settings = resolveCrawlSettings({
      spider: new Settings(),
      profiles: {},
      overrides: new Settings({ progress: false, logLevel: "error", concurrency: 64 }),
    });
    const crawl = new Crawl(new Hosts(first, hosts), { settings, log: createLogger("error") });
    const started = performance.now();
    const stats = await crawl.run();
    return { crawl, stats, seconds: (performance.now() - started) / 1000 };
  };
  // A first small crawl loads and compiles everything, so the baseline has the code in it.
  await run(count + 1, 20);
  const before = settled();
  const { crawl, stats, seconds } = await run(0, count);
  const after = settled();
  console.log(`hosts: one page on each of ${number(count)} hosts (${src})`);
  console.log(`  pages ${number(stats.pages ?? stats.responses ?? 0)} in ${number(seconds, 1)} s`);
  console.log(`  heap left by the crawl  ${mb(after.heap - before.heap)}`);
  console.log(`  RSS left by the crawl   ${mb(after.rss - before.rss)}`);
  console.log(`  RSS at the end          ${mb(after.rss)}`);
  // Kept referenced until here, so what it holds per host is in the figures above.
  void crawl;
}

/** Runs hostsPart for 1,000 hosts and for --hosts, each in a process of its own, against one server process. */
async function hostsParts(): Promise<void> {
  const { freePort } = await import("../../tests/helpers/free_port.ts");
  const port = await freePort();
  const server = spawn(Deno.execPath(), ["run", "-A", SELF, "--part=server", `--port=${port}`], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((ready) => server.stdout!.once("data", () => ready()));
  try {
    for (const hosts of [1000, Number(flags.get("hosts") ?? 100_000)]) {
      await runChild("hosts-crawl", [`--port=${port}`, `--hosts=${hosts}`]);
    }
  } finally {
    server.kill();
  }
}

/**
 * The checkpoint store as a crawl uses it, until --requests have been queued: lease 64, finish each with ten links,
 * three of them new and seven seen before (picked at random among all so far), and pages/s over the first and the
 * last 20,000 pages. The SQLite file is on a temporary directory's disk.
 */
async function checkpointPart(): Promise<void> {
  const count = Number(flags.get("requests") ?? 1_000_000);
  const { CheckpointFrontier } = await import(`${src}/queue/checkpoint.ts`);
  const { Request } = await import(`${src}/spider/request.ts`);
  const { Spider } = await import(`${src}/spider/spider.ts`);
  const { createLogger } = await import(`${src}/log.ts`);
  const dir = await Deno.makeTempDir({ prefix: "netweir-scale-" });
  const frontier = await CheckpointFrontier.open({ dir, spider: new Spider(), log: createLogger("error") });
  const link = (n: number) => new Request({ url: `https://site-${n % 500}.example.test/catalogue/item-${n}.html` });
  let made = 1;
  let seed = 1;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  await frontier.push([link(0)]);
  const WINDOW = 20_000;
  const windows: { pages: number; seconds: number; queued: number }[] = [];
  let pages = 0;
  let windowStart = performance.now();
  const started = windowStart;
  while (made < count) {
    const leases = await frontier.lease(64, { skipHost: () => false });
    if (leases.length === 0) break;
    for (const lease of leases) {
      const yielded = [];
      for (let i = 0; i < 3; i++) yielded.push(link(made++));
      for (let i = 0; i < 7; i++) yielded.push(link(Math.floor(random() * made)));
      await frontier.finish(lease, yielded);
      // The progress line asks for the counts once a second; at these rates, about once every 1,000 pages.
      if (++pages % 1000 === 0) await frontier.status();
      if (pages % WINDOW === 0) {
        const now = performance.now();
        windows.push({ pages: WINDOW, seconds: (now - windowStart) / 1000, queued: made });
        windowStart = now;
      }
    }
  }
  const status = await frontier.status();
  await frontier.close();
  const size = (await Deno.stat(`${dir}/frontier.db`)).size;
  await Deno.remove(dir, { recursive: true });
  const rate = (w: { pages: number; seconds: number }) => w.pages / w.seconds;
  const first = windows[0];
  const last = windows[windows.length - 1];
  console.log(`checkpoint: ${number(status.queued)} requests queued, ${number(pages)} pages (${src})`);
  console.log(`  pages/s, first ${number(WINDOW)} pages     ${number(rate(first))}`);
  console.log(`  pages/s, last ${number(WINDOW)} pages      ${number(rate(last))} (at ${number(last.queued)} queued)`);
  console.log(`  last against first               ${number(rate(last) / rate(first), 2)}`);
  console.log(`  all ${number(pages)} pages in ${number((performance.now() - started) / 1000, 1)} s, file ${mb(size)}`);
}

const PARTS: Record<string, () => Promise<void>> = {
  checkpoint: checkpointPart,
  frontier: frontierPart,
  hosts: hostsParts,
  "hosts-crawl": hostsPart,
  server: serverPart,
};
/** The parts run when none is named. */
const MAIN_PARTS = ["frontier", "hosts", "checkpoint"];

async function runChild(part: string, more: string[] = []): Promise<void> {
  const given = new Set(more.map((flag) => flag.slice(2).split("=")[0]));
  const extra = [...flags].filter(([name]) => name !== "part" && !given.has(name)).map(([name, value]) =>
    `--${name}=${value}`
  );
  const child = spawn(
    Deno.execPath(),
    ["run", "-A", "--v8-flags=--expose-gc", SELF, `--part=${part}`, ...extra, ...more],
    { stdio: "inherit" },
  );
  const code = await new Promise<number | null>((done) => child.on("exit", done));
  if (code !== 0) console.log(`${part}: the part's process exited with ${code}`);
}

if (import.meta.main) {
  const part = flags.get("part");
  if (part) await PARTS[part]();
  else {
    for (const name of parts.length > 0 ? parts : MAIN_PARTS) {
      if (name === "hosts") await hostsParts();
      else await runChild(name);
    }
  }
}
