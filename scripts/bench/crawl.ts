/**
 * The single-process crawler against Scrapy, on the same site in one go. Prints, asserts nothing.
 *
 *   deno run -A scripts/bench/crawl.ts [BOOKS=20000] [--skip-scrapy]
 *
 * It writes a shop of BOOKS books (BOOKS + BOOKS / 20 + 1 pages, padded to about 11 KB each with the navigation,
 * sidebar and footer a real shop page has) to a temporary directory and serves it with nginx (Debian's nginx-light:
 * one worker, keep-alive, no access log) on 127.0.0.1, or, without nginx, with a server of its own in another
 * process. Then it crawls it twice, one crawler at a time:
 *
 * - Netweir: `netweir crawl examples/books.ts`, 64 requests at once (also per host), no delay, robots.txt off;
 * - Scrapy (Debian's python3-scrapy): the same spider in Python (scripts/bench/books_scrapy.py), with the same
 *   settings, as `scrapy runspider`.
 *
 * For each it prints pages, items, pages/s (pages over the whole run's wall time, start-up included), CPU seconds
 * (user + system) and peak RSS, all from GNU time, and last the ratio of pages/s.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { shopPage, shopPaths } from "../../examples/shop.ts";
import { REPO_ROOT } from "../../tests/helpers/cli.ts";
import { freePort } from "../../tests/helpers/free_port.ts";

const args = Deno.args.filter((arg) => !arg.startsWith("--"));
const books = Number(args[0] ?? 20_000);
const skipScrapy = Deno.args.includes("--skip-scrapy");
const PAGE_TARGET_BYTES = 11 * 1024;

const number = (value: number) => value.toLocaleString("en-US");

/**
 * What a real shop page carries around its content: stylesheets and scripts in the head, a sidebar of 50
 * categories, a footer. The crawler has to read past all of it; none of it is a link the spider follows.
 */
function padding(): { head: string; sidebar: string; footer: string } {
  const head = [
    `<meta name="viewport" content="width=device-width">`,
    `<meta name="description" content="A book shop generated for benchmarks: every page the same shape as a real one.">`,
    ...["bootstrap.min", "bootstrap-datetimepicker", "styles", "shop"].map((name) =>
      `<link rel="stylesheet" type="text/css" href="../../static/oscar/css/${name}.css">`
    ),
    ...["jquery.min", "bootstrap.min", "bootstrap3-typeahead", "oscar"].map((name) =>
      `<script src="../../static/oscar/js/${name}.js" type="text/javascript" charset="utf-8"></script>`
    ),
  ].join("\n");
  const categories = [
    "Travel",
    "Mystery",
    "Historical Fiction",
    "Sequential Art",
    "Classics",
    "Philosophy",
    "Romance",
    "Womens Fiction",
    "Fiction",
    "Childrens",
    "Religion",
    "Nonfiction",
    "Music",
    "Default",
    "Science Fiction",
    "Sports and Games",
    "Add a comment",
    "Fantasy",
    "New Adult",
    "Young Adult",
    "Science",
    "Poetry",
    "Paranormal",
    "Art",
    "Psychology",
    "Autobiography",
    "Parenting",
    "Adult Fiction",
    "Humor",
    "Horror",
    "History",
    "Food and Drink",
    "Christian Fiction",
    "Business",
    "Biography",
    "Thriller",
    "Contemporary",
    "Spirituality",
    "Academic",
    "Self Help",
    "Historical",
    "Christian",
    "Suspense",
    "Short Stories",
    "Novels",
    "Health",
    "Politics",
    "Cultural",
    "Erotica",
    "Crime",
  ];
  const links = categories.map((name, i) => {
    const slug = `${name.toLowerCase().replace(/ /g, "-")}_${i + 2}`;
    return `        <li>\n          <a href="../category/books/${slug}/index.html">\n            ${name}\n          </a>\n` +
      `        </li>`;
  });
  const sidebar = `<aside class="sidebar col-sm-4 col-md-3">
    <div id="promotions_left"></div>
    <div class="side_categories">
        <ul class="nav nav-list">
            <li>
                <a href="../category/books_1/index.html">Books</a>
                <ul>
${links.join("\n")}
                </ul>
            </li>
        </ul>
    </div>
</aside>`;
  const footer = `<footer class="footer container-fluid">
    <p>Prices and availability are invented. This shop exists so that crawlers have something to read.</p>
</footer>
<script type="text/javascript">
    $(function() { oscar.init(); oscar.search.init(); });
</script>`;
  return { head, sidebar, footer };
}

/** The shop's page at `path`, padded to about PAGE_TARGET_BYTES with what real pages carry. */
function paddedPage(path: string, parts: ReturnType<typeof padding>): string {
  let html = String(shopPage(path, books).body);
  html = html.replace("</head>", `${parts.head}\n</head>`);
  html = html.replace(`<div class="container-fluid page">`, `<div class="container-fluid page">\n${parts.sidebar}`);
  const missing = PAGE_TARGET_BYTES - html.length - parts.footer.length;
  // The rest as a comment of the kind templates leave behind, so every page is about the same size.
  const filler = missing > 0
    ? `\n<!-- ${"template: shop/partials/layout.html ".repeat(Math.ceil(missing / 38))} -->`
    : "";
  return html.replace("</body>", `${parts.footer}${filler.slice(0, Math.max(0, missing))}\n</body>`);
}

async function writeShop(root: string): Promise<{ pages: number; bytes: number }> {
  const parts = padding();
  let bytes = 0;
  const paths = shopPaths(books);
  for (const path of paths) {
    const file = join(root, path.endsWith("/") ? `${path}index.html` : path);
    await mkdir(dirname(file), { recursive: true });
    const html = paddedPage(path, parts);
    bytes += new TextEncoder().encode(html).length;
    await writeFile(file, html);
  }
  return { pages: paths.length, bytes };
}

interface Server {
  url: string;
  kind: string;
  stop(): Promise<void>;
}

async function startNginx(root: string, dir: string): Promise<Server> {
  const port = await freePort();
  const conf = join(dir, "nginx.conf");
  await writeFile(
    conf,
    `worker_processes 1;
daemon off;
pid ${join(dir, "nginx.pid")};
error_log ${join(dir, "nginx-error.log")} warn;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  keepalive_timeout 60s;
  types { text/html html; }
  default_type text/html;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  server { listen 127.0.0.1:${port}; root ${root}; index index.html; }
}
`,
  );
  const child = spawn("nginx", ["-c", conf, "-p", dir], { stdio: "ignore" });
  return await serving(child, `http://127.0.0.1:${port}/`, "nginx (1 worker)");
}

/** The server `child` runs at `url`, once it answers; stopping it ends the child. */
async function serving(child: ChildProcess, url: string, kind: string): Promise<Server> {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(url)).ok) break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    url,
    kind,
    stop: async () => {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}

async function startOwnServer(root: string): Promise<Server> {
  const port = await freePort();
  const code = `Deno.serve({ hostname: "127.0.0.1", port: ${port}, onListen() {} }, async (request) => {
  const path = decodeURIComponent(new URL(request.url).pathname);
  try {
    return new Response(await Deno.readFile(${
    JSON.stringify(root)
  } + (path.endsWith("/") ? path + "index.html" : path)),
      { headers: { "content-type": "text/html" } });
  } catch { return new Response("not found", { status: 404 }); }
});`;
  const child = spawn(Deno.execPath(), ["eval", code], { stdio: "ignore" });
  return await serving(
    child,
    `http://127.0.0.1:${port}/`,
    "a Deno static server (install nginx-light for a faster one)",
  );
}

interface Measured {
  wall: number;
  cpu: number;
  peakMb: number;
  code: number | null;
  stderr: string;
}

/** Runs a command under GNU time: wall seconds, CPU seconds (user + system) and peak RSS. */
async function timed(command: string, commandArgs: string[], cwd: string): Promise<Measured> {
  const marker = "@@time";
  const child = spawn("/usr/bin/time", ["-f", `${marker} %e %U %S %M`, command, ...commandArgs], {
    cwd,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => stderr += chunk);
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  const line = stderr.split("\n").find((text) => text.startsWith(marker));
  if (!line) throw new Error(`no timing from ${command}: ${stderr.slice(-2000)}`);
  const [wall, user, system, kb] = line.slice(marker.length).trim().split(" ").map(Number);
  return { wall, cpu: user + system, peakMb: kb / 1024, code, stderr };
}

async function countLines(path: string): Promise<number> {
  const text = await readFile(path, "utf8").catch(() => "");
  return text.split("\n").filter((line) => line.trim() !== "").length;
}

const work = await mkdtemp(join(tmpdir(), "netweir-bench-crawl-"));
// nginx's worker runs as another user (www-data): it must be able to read the site.
await chmod(work, 0o755);
let server: Server | undefined;
try {
  const root = join(work, "site");
  const written = await writeShop(root);
  server = existsSync("/usr/sbin/nginx") ? await startNginx(root, work) : await startOwnServer(root);
  console.log(
    `shop: ${number(written.pages)} pages, ${(written.bytes / written.pages / 1024).toFixed(1)} KB on average, ` +
      `served by ${server.kind} at ${server.url}`,
  );
  console.log("both: 64 requests at once (64 per host), no delay, no autothrottle, robots.txt off, JSON Lines out");
  const rows: Array<{ name: string; pages: number; items: number; measured: Measured }> = [];

  const netweirItems = join(work, "netweir.jsonl");
  const statsFile = join(work, "netweir-stats.json");
  const netweir = await timed(Deno.execPath(), [
    "run",
    "-A",
    join(REPO_ROOT, "cli.ts"),
    "crawl",
    join(REPO_ROOT, "examples", "books.ts"),
    "-a",
    `site=${server.url}`,
    "-O",
    netweirItems,
    "--stats-file",
    statsFile,
    ...["concurrency=64", "per_domain=64", "min_delay=0", "autothrottle=false", "obey_robots_txt=false"]
      .flatMap((setting) => ["-s", setting]),
    "-s",
    "log_level=warning",
  ], work);
  if (netweir.code !== 0) throw new Error(`netweir failed (${netweir.code}): ${netweir.stderr.slice(-2000)}`);
  const stats = JSON.parse(await readFile(statsFile, "utf8"));
  rows.push({ name: "Netweir (Deno)", pages: stats.pages, items: await countLines(netweirItems), measured: netweir });

  if (!skipScrapy && existsSync("/usr/bin/scrapy")) {
    const scrapyItems = join(work, "scrapy.jsonl");
    const scrapy = await timed("/usr/bin/scrapy", [
      "runspider",
      join(REPO_ROOT, "scripts", "bench", "books_scrapy.py"),
      "-a",
      `site=${server.url}`,
      "-O",
      scrapyItems,
      ...[
        "CONCURRENT_REQUESTS=64",
        "CONCURRENT_REQUESTS_PER_DOMAIN=64",
        "DOWNLOAD_DELAY=0",
        "AUTOTHROTTLE_ENABLED=False",
        "ROBOTSTXT_OBEY=False",
        "TELNETCONSOLE_ENABLED=False",
        "LOG_LEVEL=INFO",
      ].flatMap((setting) => ["-s", setting]),
    ], work);
    if (scrapy.code !== 0) throw new Error(`scrapy failed (${scrapy.code}): ${scrapy.stderr.slice(-2000)}`);
    const items = await countLines(scrapyItems);
    // Its stats, dumped at the end at log level INFO.
    const pages = Number(/'response_received_count': (\d+)/.exec(scrapy.stderr)?.[1] ?? NaN);
    rows.push({ name: "Scrapy 2.8", pages, items, measured: scrapy });
  } else {
    console.log("Scrapy: skipped (apt-get install python3-scrapy to compare)");
  }

  console.log("crawler         pages    items   pages/s  CPU s  peak RSS");
  for (const { name, pages, items, measured } of rows) {
    console.log(
      `${name.padEnd(14)} ${number(pages).padStart(6)} ${number(items).padStart(8)} ` +
        `${(pages / measured.wall).toFixed(0).padStart(9)} ${measured.cpu.toFixed(1).padStart(6)} ` +
        `${measured.peakMb.toFixed(0).padStart(6)} MB`,
    );
  }
  if (rows.length === 2) {
    const ratio = (rows[0].pages / rows[0].measured.wall) / (rows[1].pages / rows[1].measured.wall);
    console.log(`Netweir / Scrapy pages/s: ${ratio.toFixed(1)}x`);
  }
} finally {
  await server?.stop();
  await rm(work, { recursive: true, force: true });
}
