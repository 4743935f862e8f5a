/**
 * A reused tab carries nothing of its last request into its next: no session or local storage, and with `cookies:
 * false` no cookie either. Driven through the tab pool with real Chromium and a real site on 127.0.0.1; one tab, so
 * the second page is rendered in the very tab the first one used. About 10 s.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { renderInTab } from "../../src/browser/render.ts";
import type { TabPool } from "../../src/browser/pool.ts";
import { Request, type Step } from "../../src/spider/request.ts";
import { openTestPool } from "../helpers/tab_pool.ts";
import { renderDeps } from "../helpers/render_deps.ts";

/** A site whose every page is the same small HTML page; the first sets a cookie by its Set-Cookie header too. */
async function startSite(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    response.setHeader("content-type", "text/html");
    if (request.url === "/first") response.setHeader("set-cookie", "byHeader=1; Path=/");
    response.end("<!doctype html><title>page</title><p>page</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const deps = renderDeps();

/** Renders `url` with `steps` in a tab of `pool`; returns what its evaluate steps gave, and which tab it was. */
async function render(pool: TabPool, url: string, steps: Step[]) {
  const signal = new AbortController().signal;
  const tab = await pool.acquire(undefined, signal);
  let healthy = false;
  try {
    const response = await renderInTab(tab, new Request({ url, render: true, steps }), deps, 20, signal);
    healthy = true;
    return { evaluated: response.rendered?.evaluated ?? [], tab };
  } finally {
    await pool.release(tab, healthy);
  }
}

const LEAVE: Step[] = [{
  evaluate: "(sessionStorage.setItem('s', 'left'), localStorage.setItem('l', 'left'), " +
    "document.cookie = 'byScript=1; path=/', [sessionStorage.getItem('s'), localStorage.getItem('l')])",
}];
const LOOK: Step[] = [{
  evaluate: "[sessionStorage.getItem('s'), localStorage.getItem('l'), document.cookie]",
}];

Deno.test("a reused tab's next page finds no session or local storage of its last one", async () => {
  const site = await startSite();
  const pool = openTestPool(1);
  try {
    const first = await render(pool, `${site.origin}/first`, LEAVE);
    // The page itself read back what it stored: the storage worked, and the next page is what is being tested.
    assert.deepEqual(first.evaluated[0], ["left", "left"]);
    const second = await render(pool, `${site.origin}/second`, LOOK);
    assert.equal(second.tab, first.tab);
    const [session, local] = second.evaluated[0] as string[];
    assert.equal(session, null, "sessionStorage survived into the next request's page");
    assert.equal(local, null, "localStorage survived into the next request's page");
  } finally {
    await pool.close();
    await site.close();
  }
});

Deno.test("cookies: false gives every rendered page, in a reused tab too, a browser with no cookie", async () => {
  const site = await startSite();
  const pool = openTestPool(1, { cookies: false });
  try {
    const first = await render(pool, `${site.origin}/first`, [...LEAVE, { evaluate: "document.cookie" }]);
    // The first page had both cookies while it was shown: so the browser did keep them for the page itself.
    assert.match(String(first.evaluated[1]), /byHeader=1/);
    assert.match(String(first.evaluated[1]), /byScript=1/);
    const second = await render(pool, `${site.origin}/second`, LOOK);
    assert.equal(second.tab, first.tab, "the second page was rendered in the same tab");
    assert.equal((second.evaluated[0] as string[])[2], "", "a cookie of the last request reached the next page");
  } finally {
    await pool.close();
    await site.close();
  }
});

Deno.test("with cookies kept, two tabs still share no storage: each has a context of its own", async () => {
  const site = await startSite();
  const pool = openTestPool(2);
  try {
    const signal = new AbortController().signal;
    // Both tabs taken at once, so they are two different tabs.
    const one = await pool.acquire(undefined, signal);
    const two = await pool.acquire(undefined, signal);
    try {
      await renderInTab(one, new Request({ url: `${site.origin}/a`, render: true, steps: LEAVE }), deps, 20, signal);
      const seen = await renderInTab(
        two,
        new Request({ url: `${site.origin}/b`, render: true, steps: LOOK }),
        deps,
        20,
        signal,
      );
      assert.deepEqual((seen.rendered?.evaluated[0] as string[]).slice(0, 2), [null, null]);
    } finally {
      await pool.release(one, true);
      await pool.release(two, true);
    }
  } finally {
    await pool.close();
    await site.close();
  }
});
