/**
 * What rendering real documentation pages costs: a generated site shaped like rustdoc's (a sidebar of thousands of
 * links built by script from an index, a long body of code blocks, a search index of hundreds of KB loaded on every
 * page) crawled by `netweir crawl` with every page rendered. Prints the whole tree's PSS over the crawl, by kind of
 * process, and the crawl process's own share; asserts nothing.
 *
 *   deno run -A scripts/bench/render_heavy.ts [PAGES=500] [TABS=4] [--every=100] [-s setting=value ...]
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../../tests/helpers/cli.ts";
import { runtime } from "../../src/runtime/mod.ts";
import { tree } from "./process_tree.ts";

const positional = Deno.args.filter((arg, i) => !arg.startsWith("-") && Deno.args[i - 1] !== "-s");
const pages = Number(positional[0] ?? 500);
const tabs = Number(positional[1] ?? 4);
const every = Number(Deno.args.find((arg) => arg.startsWith("--every="))?.slice(8) ?? 100);
const extra = Deno.args.flatMap((arg, i) => Deno.args[i - 1] === "-s" ? ["-s", arg] : []);

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

const listener = await runtime.listen((request) => {
  const path = new URL(request.url).pathname;
  if (path === "/search-index.js") return new Response(INDEX, { headers: { "content-type": "text/javascript" } });
  const match = /^\/(?:page\/(\d+))?$/.exec(path);
  if (!match) return new Response("not found", { status: 404 });
  return new Response(page(Number(match[1] ?? 0)), { headers: { "content-type": "text/html; charset=utf-8" } });
}, { hostname: "127.0.0.1", port: 0 });
const site = `http://127.0.0.1:${listener.port}/`;
const dir = await mkdtemp(join(tmpdir(), "netweir-heavy-"));
const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;
try {
  console.log(`page: ${mb(page(1).length)} of HTML (${page(1).length} bytes), index ${INDEX.length} bytes`);
  const items = join(dir, "items.jsonl");
  const args = [
    "run",
    "-A",
    "cli.ts",
    "crawl",
    "scripts/bench/heavy_spider.ts",
    "-a",
    `site=${site}`,
    "-O",
    items,
    ...[`browser_tabs=${tabs}`, `concurrency=${tabs}`, `per_domain=${tabs}`, "min_delay=0", "autothrottle=false"]
      .flatMap((setting) => ["-s", setting]),
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
  let nextMark = every;
  console.log("| rendered | tree PSS | crawl process | renderers | rest of Chromium | renderer count |");
  console.log("| --- | --- | --- | --- | --- | --- |");
  while (!done) {
    const now = await tree(child.pid!);
    const crawl = now.kinds["crawl process"] ?? 0;
    const renderers = now.kinds["renderer"] ?? 0;
    if (now.pss > peak.pss) peak = { pss: now.pss, crawl, renderers, browser: now.pss - crawl - renderers };
    const count = (await readFile(items, "utf8").catch(() => "")).split("\n").length - 1;
    if (count >= nextMark) {
      console.log(
        `| ${count} | ${mb(now.pss)} | ${mb(crawl)} | ${mb(renderers)} | ${
          mb(now.pss - crawl - renderers)
        } | ${now.renderers} |`,
      );
      nextMark += every;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  if ((await exited) !== 0) throw new Error(`the crawl failed: ${stderr}`);
  const count = (await readFile(items, "utf8")).split("\n").length - 1;
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `\n${count} pages in ${seconds.toFixed(0)} s; peak tree PSS ${mb(peak.pss)}: crawl process ` +
      `${mb(peak.crawl)}, renderers ${mb(peak.renderers)}, rest of Chromium ${mb(peak.browser)}`,
  );
} finally {
  await listener.close();
  await rm(dir, { recursive: true, force: true });
}
