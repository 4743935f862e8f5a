/**
 * What rendering real documentation pages costs: a generated site shaped like rustdoc's (a sidebar of thousands of
 * links built by script from an index, a long body of code blocks, a search index of hundreds of KB loaded on every
 * page) crawled by `netweir crawl` with every page rendered. Prints the whole tree's PSS over the crawl, by kind of
 * process, and the crawl process's own share; asserts nothing.
 *
 * With `--docs=DIR` the site is a real one instead: the directory served as it is (Debian's rust-doc,
 * /usr/share/doc/rust/html, after `apt-get install rust-doc`), crawled by scripts/bench/rust_docs_spider.ts, which
 * follows every link, up to PAGES pages (`max_pages`). The spider also reports the crawl process's V8 heap and external
 * memory every 25 pages, printed beside the PSS; `-a snapshot=PATH -a snapshotAt=N` writes a heap snapshot.
 *
 * `--concurrency=N` sets the crawl's `concurrency` and `per_domain` (default: TABS; the crawl's own default is 16).
 *
 * The crawl runs as `deno task crawl` and a generated project run it, with the crawl's V8 heap settings
 * (src/runtime/heap_flags.ts); `--no-heap-flags` runs it with V8's defaults instead, as this benchmark did before.
 *
 *   deno run -A scripts/bench/render_heavy.ts [PAGES=500] [TABS=4] [--every=100] [--docs=DIR] [--concurrency=N]
 *     [-s setting=value ...] [-a argument=value ...]
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../../tests/helpers/cli.ts";
import { runtime } from "../../src/runtime/mod.ts";
import { CRAWL_V8_FLAGS } from "../../src/runtime/heap_flags.ts";
import { tree } from "./process_tree.ts";

const isValue = (i: number) => Deno.args[i - 1] === "-s" || Deno.args[i - 1] === "-a";
const positional = Deno.args.filter((arg, i) => !arg.startsWith("-") && !isValue(i));
const pages = Number(positional[0] ?? 500);
const tabs = Number(positional[1] ?? 4);
const option = (name: string) => Deno.args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const every = Number(option("every") ?? 100);
const docs = option("docs");
const concurrency = Number(option("concurrency") ?? tabs);
const heapFlags = Deno.args.includes("--no-heap-flags") ? [] : [`--v8-flags=${CRAWL_V8_FLAGS.deno.join(",")}`];
const extra = Deno.args.flatMap((arg, i) => isValue(i) ? [Deno.args[i - 1], arg] : []);

/** A search index like rustdoc's search-index.js: one big script every page loads and parses. */
const INDEX = `window.searchIndex = ${
  JSON.stringify(Array.from({ length: 12_000 }, (_, i) => [`std::module_${i % 300}::Item${i}`, `fn item_${i}()`, i]))
};`;

function page(n: number): string {
  const code = Array.from(
    { length: 120 },
    (_, i) =>
      `<h3 id="method.m${i}">pub fn method_${i}(&amp;self, value: u${i % 64}) -&gt; Option&lt;T&gt;</h3>
<div class="docblock"><p>Returns the ${i}th value of page ${n}, or <code>None</code> when there is none.</p>
<pre class="rust"><code>let v = thing.method_${i}(${i});\nassert_eq!(v, Some(${i}));\nfor x in v { println!("{x}"); }</code></pre></div>`,
  ).join("\n");
  const next = [1, 2, 3].map((step) => n + step).filter((to) => to < pages)
    .map((to) => `<a class="next" href="/page/${to}">page ${to}</a>`).join(" ");
  return `<!doctype html><html><head><meta charset="utf-8"><title>Page ${n}</title>
<style>#sidebar a { display: block; } .docblock { margin-left: 2em; }</style>
<script src="/search-index.js"></script></head><body><nav id="sidebar"></nav><main><h1>Struct Page${n}</h1>${next}
${code}</main><script>
const sidebar = document.getElementById("sidebar");
for (const [path, , i] of window.searchIndex.slice(0, 3000)) {
  const a = document.createElement("a");
  a.href = "#" + i;
  a.textContent = path;
  sidebar.append(a);
}
</script></body></html>`;
}

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript",
  css: "text/css",
  svg: "image/svg+xml",
  png: "image/png",
  woff: "font/woff",
  woff2: "font/woff2",
  ttf: "font/ttf",
  json: "application/json",
};

/** A file of the directory `root`, with its type by extension, as a static server would answer it. */
async function serveFile(root: string, path: string): Promise<Response> {
  const file = join(root, decodeURIComponent(path).replace(/\/$/, "/index.html"));
  if (!file.startsWith(root)) return new Response("not found", { status: 404 });
  const body = await readFile(file).catch(() => undefined);
  if (body === undefined) return new Response("not found", { status: 404 });
  const type = TYPES[file.slice(file.lastIndexOf(".") + 1)] ?? "application/octet-stream";
  return new Response(body, { headers: { "content-type": type } });
}

/** The crawl process's own RSS, from /proc (0 once it has exited). */
async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  return Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0) * 1024;
}

const listener = await runtime.listen((request) => {
  const path = new URL(request.url).pathname;
  if (docs !== undefined) return serveFile(docs, path);
  if (path === "/search-index.js") return new Response(INDEX, { headers: { "content-type": "text/javascript" } });
  const match = /^\/(?:page\/(\d+))?$/.exec(path);
  if (!match) return new Response("not found", { status: 404 });
  return new Response(page(Number(match[1] ?? 0)), { headers: { "content-type": "text/html; charset=utf-8" } });
}, { hostname: "127.0.0.1", port: 0 });
const root = `http://127.0.0.1:${listener.port}/`;
const dir = await mkdtemp(join(tmpdir(), "netweir-heavy-"));
const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;
try {
  if (docs === undefined) {
    console.log(`page: ${mb(page(1).length)} of HTML (${page(1).length} bytes), index ${INDEX.length} bytes`);
  }
  const items = join(dir, "items.jsonl");
  const site = docs === undefined ? root : `${root}std/index.html`;
  const spider = docs === undefined ? "scripts/bench/heavy_spider.ts" : "scripts/bench/rust_docs_spider.ts";
  const settings = [`browser_tabs=${tabs}`, `concurrency=${concurrency}`, `per_domain=${concurrency}`];
  settings.push("min_delay=0", "autothrottle=false", `max_pages=${pages}`);
  console.log(`settings: ${settings.join(" ")} ${extra.join(" ")} ${heapFlags.join(" ") || "(V8's default heap)"}`);
  const args = [
    "run",
    "-A",
    ...heapFlags,
    "cli.ts",
    "crawl",
    spider,
    "-a",
    `site=${site}`,
    "-O",
    items,
    ...settings.flatMap((setting) => ["-s", setting]),
    "-s",
    "log_level=warning",
    "-s",
    "progress=false",
    ...extra,
  ];
  const started = performance.now();
  const child = spawn(Deno.execPath(), args, { stdio: ["ignore", "ignore", "pipe"], cwd: REPO_ROOT });
  let stderr = "";
  child.stderr!.on("data", (chunk) => stderr = (stderr + chunk).slice(-4000));
  let done = false;
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  exited.then(() => done = true);
  let peak = { pss: 0, crawl: 0, renderers: 0, browser: 0 };
  /** Every sample: pages done, then the crawl process's RSS and PSS and the renderers' PSS. */
  const samples: { count: number; crawlRss: number; crawl: number; renderers: number }[] = [];
  let nextMark = every;
  console.log("| rendered | tree PSS | crawl process PSS (RSS) | renderers | rest of Chromium | renderer count |");
  console.log("| --- | --- | --- | --- | --- | --- |");
  while (!done) {
    const now = await tree(child.pid!);
    const crawl = now.kinds["crawl process"] ?? 0;
    const renderers = now.kinds["renderer"] ?? 0;
    const crawlRss = await rssOf(child.pid!);
    if (now.pss > peak.pss) peak = { pss: now.pss, crawl, renderers, browser: now.pss - crawl - renderers };
    const count = (await readFile(items, "utf8").catch(() => "")).split("\n").length - 1;
    if (crawlRss > 0) samples.push({ count, crawlRss, crawl, renderers });
    if (count >= nextMark) {
      console.log(
        `| ${count} | ${mb(now.pss)} | ${mb(crawl)} (${mb(crawlRss)}) | ${mb(renderers)} | ${
          mb(now.pss - crawl - renderers)
        } | ${now.renderers} |`,
      );
      nextMark += every;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  if ((await exited) !== 0) throw new Error(`the crawl failed: ${stderr}`);
  const lines = (await readFile(items, "utf8")).split("\n").filter((line) => line !== "");
  const count = lines.length;
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `\n${count} pages in ${seconds.toFixed(0)} s; peak tree PSS ${mb(peak.pss)}: crawl process ` +
      `${mb(peak.crawl)}, renderers ${mb(peak.renderers)}, rest of Chromium ${mb(peak.browser)}`,
  );
  // Steady: the mean over the second half of the crawl (by pages done), once the first pages' growth is past.
  const late = samples.filter((sample) => sample.count >= count / 2);
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
  const most = (values: number[]) => values.reduce((top, value) => Math.max(top, value), 0);
  console.log(
    `crawl process RSS: peak ${mb(most(samples.map((s) => s.crawlRss)))}, steady ${
      mb(mean(late.map((s) => s.crawlRss)))
    }; PSS peak ${mb(most(samples.map((s) => s.crawl)))}, steady ${mb(mean(late.map((s) => s.crawl)))}`,
  );
  console.log(
    `renderers PSS: peak ${mb(most(samples.map((s) => s.renderers)))}, steady ${
      mb(mean(late.map((s) => s.renderers)))
    }`,
  );
  // The spider's own view of the crawl process (rust_docs_spider.ts): its V8 heap and the memory outside it.
  const memory = lines.map((line) => JSON.parse(line).memory).filter((sample) => sample !== undefined);
  if (memory.length > 0) {
    console.log("\n| parsed | RSS | V8 heap used | V8 heap total | external |\n| --- | --- | --- | --- | --- |");
    for (const sample of memory) {
      console.log(
        `| ${sample.parsed} | ${mb(sample.rss)} | ${mb(sample.heapUsed)} | ${mb(sample.heapTotal)} | ${
          mb(sample.external)
        } |`,
      );
    }
  }
} finally {
  await listener.close();
  await rm(dir, { recursive: true, force: true });
}
