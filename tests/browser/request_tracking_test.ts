/**
 * A tab renders page after page for up to 1,000 pages: nothing of one page's requests may stay in the crawl's process
 * after it. puppeteer's page counts the requests in flight by subscribing, for each request, to its end (finished,
 * failed or answered); a request whose end it missed kept that subscription, the request and three listeners on the
 * page for the tab's whole life. Counted here: the page's listeners for those ends (three a request it waits for),
 * beside the requests seen to begin and not end by the same events, named. Real Chromium, a real site on 127.0.0.1
 * whose pages load a stylesheet, a script and images the crawl refuses (`browser_block`), and every other page names
 * an icon of its own (`<link rel=icon>`); the rest leave Chromium to ask for /favicon.ico. Chromium asks for the icon
 * after the load, and when the next navigation cut that request short its end never reached the page: counted here
 * like the rest (it failed on every run before icons were refused), and the site must see no icon request at all.
 * About 5 s.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { HTTPRequest } from "puppeteer-core";
import { renderInTab } from "../../src/browser/render.ts";
import { Request } from "../../src/spider/request.ts";
import { openTestPool } from "../helpers/tab_pool.ts";
import { renderDeps } from "../helpers/render_deps.ts";
import { waitUntil } from "../helpers/wait.ts";

const IMAGES = 6;
/** Page `n`: odd ones name an icon, even ones leave Chromium to look for /favicon.ico. */
const page = (n: number) =>
  `<!doctype html><html><head><title>docs</title>
<link rel="stylesheet" href="/style.css"><script src="/app.js"></script>
${n % 2 === 1 ? `<link rel="icon" href="/icons/${n}.png">` : ""}</head><body><h1>docs</h1>
${Array.from({ length: IMAGES }, (_, i) => `<img src="/image-${i}.svg" alt="${i}">`).join("\n")}</body></html>`;

const FILES: Record<string, [string, string]> = {
  "/style.css": ["text/css", "h1 { color: #333; }"],
  "/app.js": ["text/javascript", "document.title += ' (scripted)';"],
};

/** The page's listeners for a request's end: one of each per request it still waits for. */
const REQUEST_ENDS = ["requestfinished", "requestfailed", "response"] as const;

Deno.test("pages rendered one after another in a tab leave none of their requests tracked by the tab", async () => {
  const icons: string[] = [];
  const server = createServer((request, response) => {
    const path = request.url ?? "";
    if (path === "/favicon.ico" || path.startsWith("/icons/")) icons.push(path);
    const [type, body] = FILES[path] ?? ["text/html", page(Number(path.split("/").pop()))];
    response.setHeader("content-type", type);
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const site = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const pool = openTestPool(1, { blockTypes: ["Image"] });
  let refused = 0;
  const deps = {
    ...renderDeps(),
    blockTypes: new Set(["Image"]),
    count: (name: string) => name === "browser.blocked" && refused++,
  };
  try {
    const signal = new AbortController().signal;
    const renders = 20;
    /** Requests the page saw begin and not end, with what they are. */
    const open = new Map<HTTPRequest, string>();
    for (let n = 0; n < renders; n++) {
      const tab = await pool.acquire(undefined, signal);
      if (n === 0) {
        tab.page.on("request", (request) => open.set(request, `${request.resourceType()} ${request.url()}`));
        tab.page.on("requestfinished", (request) => open.delete(request));
        tab.page.on("requestfailed", (request) => open.delete(request));
        tab.page.on("response", (response) => open.delete(response.request()));
      }
      let healthy = false;
      try {
        const response = await renderInTab(
          tab,
          new Request({ url: `${site}page/${n}`, render: true }),
          deps,
          20,
          signal,
        );
        assert.match(new TextDecoder().decode(response.body), /<title>docs \(scripted\)<\/title>/);
        healthy = true;
      } finally {
        await pool.release(tab, healthy);
      }
      // Three listeners are this test's own (above); three more for each request the page waits for.
      const tracked = () => (REQUEST_ENDS.reduce((sum, end) => sum + tab.page.listenerCount(end), 0) - 3) / 3;
      // A request may still be ending a moment after the page's load event: waited for, not a timing under test.
      await waitUntil(
        `the tab to track no request after page ${n} (it tracks ${tracked()}: ${[...open.values()]})`,
        () => tracked() === 0,
        10_000,
      )
        .catch((error) => assert.fail(`after ${n + 1} of ${renders} pages: ${error.message}`));
    }
    assert.ok(refused >= renders * IMAGES, `the images were refused (${refused} refusals)`);
    assert.deepEqual(icons, [], "Chromium asked the site for no icon");
  } finally {
    await pool.close();
    await new Promise((resolve) => server.close(resolve));
  }
});
