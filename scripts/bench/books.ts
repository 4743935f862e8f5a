/**
 * The single-process crawler against Scrapy, on the same site in one go. Prints, asserts nothing.
 *
 *   deno run -A scripts/bench/books.ts [BOOKS=20000] [--skip-scrapy]
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
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { shopPage, shopPaths } from "../../examples/shop.ts";
import { REPO_ROOT } from "../../tests/helpers/cli.ts";
import { serveDirectory, type StaticServer } from "./static_server.ts";
import { type Measured, timed } from "./timed.ts";

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

async function countLines(path: string): Promise<number> {
  const text = await readFile(path, "utf8").catch(() => "");
  return text.split("\n").filter((line) => line.trim() !== "").length;
}

const work = await mkdtemp(join(tmpdir(), "netweir-bench-crawl-"));
let server: StaticServer | undefined;
try {
  const root = join(work, "site");
  const written = await writeShop(root);
  server = await serveDirectory(root, work);
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
  ], { cwd: work });
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
    ], { cwd: work });
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
