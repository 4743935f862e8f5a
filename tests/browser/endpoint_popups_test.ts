/**
 * A browser elsewhere: a popup a rendered page opens is closed before it fetches anything, as in a browser Netweir
 * starts, and the browser's own tab is neither attached to nor closed. Through the tab pool, with a Chromium the test
 * starts on a DevTools port. About 10 s.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { renderInTab } from "../../src/browser/render.ts";
import { Request } from "../../src/spider/request.ts";
import { OWN_TAB, startExternalChromium } from "../helpers/external_chromium.ts";
import { openTestPool } from "../helpers/tab_pool.ts";
import { renderDeps } from "../helpers/render_deps.ts";
import { waitUntil } from "../helpers/wait.ts";

Deno.test("in a browser elsewhere a page's popup is closed unfetched, and the browser's own tab is left alone", async () => {
  const asked: string[] = [];
  const server = createServer((request, response) => {
    asked.push(request.url!);
    response.setHeader("content-type", "text/html");
    response.end(
      request.url === "/opener"
        ? `<!doctype html><p>opener</p><script>window.open("/popup")</script>`
        : "<!doctype html><p>popup</p>",
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await startExternalChromium();
  let popups = 0;
  const pool = openTestPool(1, { endpoint: browser.http, onPopup: () => popups++ });
  try {
    const signal = new AbortController().signal;
    const tab = await pool.acquire(undefined, signal);
    try {
      await renderInTab(tab, new Request({ url: `${origin}/opener`, render: true }), renderDeps(), 20, signal);
    } finally {
      await pool.release(tab, true);
    }
    // A guard, not a timing: a loaded machine may take seconds to report the popup.
    await waitUntil("the popup to be closed", () => popups > 0, 30_000, 100).catch(() => {});
    assert.equal(popups, 1, "the popup was closed");
    // (The opener's window may ask for /favicon.ico: a browser started without puppeteer's switches does.)
    assert.ok(asked.includes("/opener"));
    assert.ok(!asked.includes("/popup"), `the popup fetched nothing: ${asked.join(", ")}`);
    await pool.close();
    assert.ok(browser.running());
    assert.deepEqual(await browser.tabs(), [OWN_TAB]);
  } finally {
    await pool.close();
    await browser.close();
    server.close();
  }
});
