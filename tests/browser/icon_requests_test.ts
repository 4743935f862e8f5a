/**
 * Chromium's own request for a page's icon is refused before it leaves the browser; what the page itself loads is not,
 * though it looks alike: an `<img>` of /favicon.ico, and a worker's script (paused with the icons, as resource type
 * `Other`, and let through). Real Chromium, a real site on 127.0.0.1. About 2 s.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Protocol } from "puppeteer-core";
import { renderInTab } from "../../src/browser/render.ts";
import { Request } from "../../src/spider/request.ts";
import { openTestPool } from "../helpers/tab_pool.ts";
import { renderDeps } from "../helpers/render_deps.ts";
import { waitUntil } from "../helpers/wait.ts";

const PAGE = `<!doctype html><html><head><title>icons</title></head><body>
<img src="/favicon.ico" alt="the page's own image of the icon">
<script>new Worker("/worker.js").onmessage = (event) => document.body.dataset.worker = event.data;</script>
</body></html>`;

const FILES: Record<string, [string, string]> = {
  "/favicon.ico": ["image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>`],
  "/worker.js": ["text/javascript", `postMessage("ready");`],
};

Deno.test("Chromium's request for a page's icon never reaches the site; the page's own image and worker do", async () => {
  const asked: string[] = [];
  const server = createServer((request, response) => {
    const path = request.url ?? "";
    asked.push(path);
    const [type, body] = FILES[path] ?? ["text/html", PAGE];
    response.setHeader("content-type", type);
    // Not kept: Chromium's icon request must not be answered from the cache the page's own image filled.
    response.setHeader("cache-control", "no-store");
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const site = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const pool = openTestPool(1);
  try {
    const signal = new AbortController().signal;
    const tab = await pool.acquire(undefined, signal);
    /** Chromium's own icon request: resource type Other, for /favicon.ico (the page's image is of type Image). */
    let icon: string | undefined;
    let iconEnd: string | undefined;
    tab.session.on("Fetch.requestPaused", (event: Protocol.Fetch.RequestPausedEvent) => {
      if (event.resourceType === "Other" && event.request.url === `${site}favicon.ico`) icon = event.networkId;
    });
    tab.session.on("Network.loadingFailed", (event: Protocol.Network.LoadingFailedEvent) => {
      if (event.requestId === icon) iconEnd = event.errorText;
    });
    let healthy = false;
    try {
      const response = await renderInTab(
        tab,
        new Request({ url: `${site}page`, render: true, steps: [{ wait_for: "body[data-worker=ready]" }] }),
        renderDeps(),
        20,
        signal,
      );
      assert.match(new TextDecoder().decode(response.body), /data-worker="ready"/);
      // Chromium asks for the icon after the load: waited for, then its end, before the site's log is read.
      await waitUntil("Chromium to ask for the page's icon and be refused", () => iconEnd !== undefined, 10_000);
      healthy = true;
    } finally {
      await pool.release(tab, healthy);
    }
    assert.match(iconEnd!, /^net::ERR_BLOCKED_BY_CLIENT/);
    assert.deepEqual(asked.sort(), ["/favicon.ico", "/page", "/worker.js"], "the icon once: the page's own image");
  } finally {
    await pool.close();
    await new Promise((resolve) => server.close(resolve));
  }
});
