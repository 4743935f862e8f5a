/**
 * The ceiling for scripts/bench/render.ts: a bare rendering loop with the same CDP library and no framework. A pool
 * of TABS tabs takes URLs from an array; a listing page is loaded, its "Load more" clicked and its links read; a
 * product page is loaded (rendered) and its name read. A Set of seen URLs, nothing else: no politeness, no retries,
 * no output beyond a count. Prints one JSON line.
 *
 *   deno run -A scripts/bench/render_bare.ts SITE_URL TABS [products=render|http]
 */
import puppeteer, { type Page } from "puppeteer-core";

const [site, tabsArg, productsMode = "render"] = Deno.args;
const tabs = Number(tabsArg ?? 4);
const browser = await puppeteer.launch({
  executablePath: "/usr/bin/chromium",
  pipe: true,
  headless: true,
  args: ["--no-sandbox", "--disable-dev-shm-usage"],
});
const queue: string[] = [site];
const seen = new Set(queue);
let pages = 0;
let items = 0;
const started = performance.now();

async function work(page: Page): Promise<void> {
  for (;;) {
    const url = queue.shift();
    if (url === undefined) {
      if (active === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
      continue;
    }
    active++;
    try {
      if (url.includes("/product/")) {
        if (productsMode === "render") {
          await page.goto(url, { waitUntil: "load" });
          await page.evaluate('document.querySelector("h1").textContent');
        } else {
          await (await fetch(url)).text();
        }
        items++;
      } else {
        await page.goto(url, { waitUntil: "load" });
        await page.waitForSelector("#more", { visible: true });
        await page.click("#more");
        await page.waitForSelector("body[data-loaded=all]");
        const links = await page.evaluate(
          '[...document.querySelectorAll("a.product, #next")].map((a) => a.href)',
        ) as string[];
        for (const link of links) {
          if (!seen.has(link)) {
            seen.add(link);
            queue.push(link);
          }
        }
      }
      pages++;
    } finally {
      active--;
    }
  }
}

let active = 0;
const workers = [];
for (let i = 0; i < tabs; i++) {
  const page = await browser.newPage({ type: "window" });
  workers.push(work(page));
}
await Promise.all(workers);
await browser.close();
console.log(JSON.stringify({ pages, items, seconds: (performance.now() - started) / 1000 }));
