/**
 * The ceiling for the `render: "auto"` runs of scripts/bench/render.ts: a bare loop over the auto-rendering shop
 * (tests/helpers/auto_site.ts) that already knows which pages need the browser. TABS tabs render the listing pages
 * and read their links; CONCURRENCY fetch() loops take the product and maker pages over plain HTTP and read their
 * fields with a regular expression. A Set of seen URLs, nothing else: no politeness, retries, parsing library or
 * output beyond counts. Prints one JSON line.
 *
 *   deno run -A scripts/bench/render_auto_bare.ts FIRST_LISTING_URL TABS CONCURRENCY
 */
import puppeteer, { type Page } from "puppeteer-core";

const [first, tabsArg, concurrencyArg] = Deno.args;
const tabs = Number(tabsArg ?? 4);
const concurrency = Number(concurrencyArg ?? 16);
const browser = await puppeteer.launch({
  executablePath: "/usr/bin/chromium",
  pipe: true,
  headless: true,
  args: ["--no-sandbox", "--disable-dev-shm-usage"],
});
const listings: string[] = [first];
const plain: string[] = [];
const seen = new Set([first]);
let pages = 0;
let items = 0;
let rendered = 0;
let active = 0;
const started = performance.now();

function add(url: string): void {
  if (seen.has(url)) return;
  seen.add(url);
  (url.includes("/list/") ? listings : plain).push(url);
}

/** Takes from `queue` until every queue is empty and nothing is under way. */
async function drain(queue: string[], visit: (url: string) => Promise<void>): Promise<void> {
  for (;;) {
    const url = queue.shift();
    if (url === undefined) {
      if (active === 0 && listings.length === 0 && plain.length === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 2));
      continue;
    }
    active++;
    try {
      await visit(url);
      pages++;
    } finally {
      active--;
    }
  }
}

async function renderListing(page: Page, url: string): Promise<void> {
  await page.goto(url, { waitUntil: "load" });
  rendered++;
  const links = await page.evaluate('[...document.querySelectorAll("a.product, #next")].map((a) => a.href)');
  for (const link of links as string[]) add(link);
}

async function fetchPlain(url: string): Promise<void> {
  const html = await (await fetch(url)).text();
  items++;
  const maker = /href="(\/maker\/\d+)"/.exec(html)?.[1];
  if (maker) add(new URL(maker, url).href);
}

const loops: Promise<void>[] = [];
for (let i = 0; i < tabs; i++) {
  const page = await browser.newPage({ type: "window" });
  loops.push(drain(listings, (url) => renderListing(page, url)));
}
for (let i = 0; i < concurrency; i++) loops.push(drain(plain, fetchPlain));
await Promise.all(loops);
await browser.close();
console.log(JSON.stringify({ pages, items, rendered, seconds: (performance.now() - started) / 1000 }));
