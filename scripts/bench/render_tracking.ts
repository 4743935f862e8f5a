/**
 * What a tab keeps of the requests of the pages it rendered: puppeteer's page counts a request in flight until it sees
 * the request end, holding it, its subscription and three listeners meanwhile, so a request whose end never comes is
 * kept for the tab's life (up to 1,000 pages). TABS tabs of the pool render PAGES small pages of a local site one
 * after another (each page a stylesheet, a script, images the crawl refuses, and every other page an icon of its own,
 * the rest leaving Chromium to ask for /favicon.ico); every `--every` pages this prints how many requests the tabs'
 * pages still count as in flight, and how many of those are icons, and how many icon requests reached the site.
 * Prints, asserts nothing.
 *
 *   deno run -A scripts/bench/render_tracking.ts [PAGES=1000] [TABS=1] [--every=100]
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { HTTPRequest, Page } from "puppeteer-core";
import { renderInTab } from "../../src/browser/render.ts";
import { Request } from "../../src/spider/request.ts";
import { openTestPool } from "../../tests/helpers/tab_pool.ts";
import { renderDeps } from "../../tests/helpers/render_deps.ts";

const positional = Deno.args.filter((arg) => !arg.startsWith("--"));
const pages = Number(positional[0] ?? 1000);
const tabs = Number(positional[1] ?? 1);
const every = Number(Deno.args.find((arg) => arg.startsWith("--every="))?.slice(8) ?? 100);

const IMAGES = 4;
const page = (n: number) =>
  `<!doctype html><html><head><title>page ${n}</title>
<link rel="stylesheet" href="/style.css"><script src="/app.js"></script>
${n % 2 === 1 ? `<link rel="icon" href="/icons/${n}.png">` : ""}</head><body><h1>page ${n}</h1>
${Array.from({ length: IMAGES }, (_, i) => `<img src="/image-${i}.svg" alt="${i}">`).join("\n")}</body></html>`;
const FILES: Record<string, [string, string]> = {
  "/style.css": ["text/css", "h1 { color: #333; }"],
  "/app.js": ["text/javascript", "document.title += ' (scripted)';"],
  "/favicon.ico": ["image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>`],
};

let iconsAsked = 0;
const server = createServer((request, response) => {
  const path = request.url ?? "";
  if (path === "/favicon.ico" || path.startsWith("/icons/")) iconsAsked++;
  const [type, body] = FILES[path] ?? (path.startsWith("/icons/") ? FILES["/favicon.ico"] : undefined) ??
    ["text/html", page(Number(path.split("/").pop()))];
  response.setHeader("content-type", type);
  response.end(body);
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const site = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

/** Each tab's page, with the requests it was seen to begin and not end (the same events puppeteer counts by). */
const open = new Map<Page, Map<HTTPRequest, string>>();
function watch(tabPage: Page): void {
  if (open.has(tabPage)) return;
  const requests = new Map<HTTPRequest, string>();
  open.set(tabPage, requests);
  tabPage.on("request", (request) => requests.set(request, request.url()));
  tabPage.on("requestfinished", (request) => requests.delete(request));
  tabPage.on("requestfailed", (request) => requests.delete(request));
  tabPage.on("response", (response) => requests.delete(response.request()));
}

/** Requests the tabs' pages count as in flight: three listeners each for its end, less the three of `watch`. */
function tracked(): { requests: number; icons: number } {
  let requests = 0;
  let icons = 0;
  for (const [tabPage, seen] of open) {
    if (tabPage.isClosed()) continue;
    const ends = ["requestfinished", "requestfailed", "response"] as const;
    requests += (ends.reduce((sum, end) => sum + tabPage.listenerCount(end), 0) - 3) / 3;
    icons += [...seen.values()].filter((url) => url.endsWith("/favicon.ico") || url.includes("/icons/")).length;
  }
  return { requests, icons };
}

// Never replaced within the run (the pool replaces a tab after 1,000 pages): what one tab keeps over all of them.
const pool = openTestPool(tabs, { blockTypes: ["Image"], tabUses: pages + 1 });
const deps = { ...renderDeps(), blockTypes: new Set(["Image"]) };
const signal = new AbortController().signal;
let next = 0;
let done = 0;
let nextMark = every;
console.log(`${pages} pages, ${tabs} tab(s); requests the tabs' pages count as in flight:`);
console.log("\n| pages | in flight | of them icons | icon requests the site saw |\n| --- | --- | --- | --- |");
const started = performance.now();
try {
  await Promise.all(Array.from({ length: tabs }, async () => {
    while (next < pages) {
      const n = next++;
      const tab = await pool.acquire(undefined, signal);
      watch(tab.page);
      let healthy = false;
      try {
        await renderInTab(tab, new Request({ url: `${site}page/${n}`, render: true }), deps, 20, signal);
        healthy = true;
      } finally {
        await pool.release(tab, healthy);
      }
      if (++done >= nextMark) {
        nextMark += every;
        const now = tracked();
        console.log(`| ${done} | ${now.requests} | ${now.icons} | ${iconsAsked} |`);
      }
    }
  }));
  console.log(`\n${(done / ((performance.now() - started) / 1000)).toFixed(1)} pages/s`);
} finally {
  await pool.close();
  server.close();
}
