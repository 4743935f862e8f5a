/**
 * The tab pool and one render, driven directly (no crawl around them), with real Chromium and a real site: what a
 * long crawl depends on and a short one would never show. The main document is fetched with `fetch` here, where a
 * crawl uses its HTTP fetcher.
 */
import assert from "node:assert/strict";
import { FetchError } from "../../src/errors.ts";
import type { TabPool } from "../../src/browser/pool.ts";
import { renderInTab } from "../../src/browser/render.ts";
import { renderDeps } from "../helpers/render_deps.ts";
import { Request, type Step } from "../../src/spider/request.ts";
import { startJsSite } from "../helpers/js_site.ts";
import { openTestPool } from "../helpers/tab_pool.ts";
import { sendSignal } from "../helpers/signal.ts";
import { waitUntil } from "../helpers/wait.ts";

const deps = renderDeps();

const LOAD_ALL: Step[] = [{ click: "#more" }, { wait_for: "body[data-loaded=all]" }];

/** Renders `url` in a tab of `pool`, with `steps`, and gives the tab back. */
async function render(pool: TabPool, url: string, signal: AbortSignal, steps: Step[] = LOAD_ALL) {
  const tab = await pool.acquire(undefined, signal);
  let healthy = false;
  try {
    const response = await renderInTab(tab, new Request({ url, render: true, steps }), deps, 20, signal);
    healthy = true;
    return { response, tab };
  } finally {
    await pool.release(tab, healthy);
  }
}

/** The abort listeners `signal` holds now: added and not yet removed (or fired). */
function watchListeners(signal: AbortSignal): () => number {
  const live = new Set<unknown>();
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  type Listener = EventListenerOrEventListenerObject;
  Object.assign(signal, {
    addEventListener: (type: string, listener: Listener, options?: AddEventListenerOptions) => {
      if (type === "abort") live.add(listener);
      add(type, listener, options);
    },
    removeEventListener: (type: string, listener: Listener, options?: EventListenerOptions) => {
      if (type === "abort") live.delete(listener);
      remove(type, listener, options);
    },
  });
  return () => live.size;
}

Deno.test("a finished render leaves no listener on the crawl's signal (each one kept its whole page alive)", async () => {
  const site = await startJsSite({ products: 20, perPage: 10 });
  const pool = openTestPool(1);
  try {
    const controller = new AbortController();
    const listening = watchListeners(controller.signal);
    for (const path of ["list/1", "list/2", "product/3"]) {
      const { response } = await render(
        pool,
        site.url + path,
        controller.signal,
        path.startsWith("list") ? LOAD_ALL : [],
      );
      assert.equal(response.status, 200);
      assert.equal(listening(), 0, `after ${path}`);
    }
  } finally {
    await pool.close();
    await site.close();
  }
});

Deno.test("the crawl's signal still stops a render in the middle of its steps", async () => {
  const site = await startJsSite();
  const pool = openTestPool(1);
  try {
    const controller = new AbortController();
    const rendering = render(pool, site.url + "list/1", controller.signal, [{ wait_for: 10_000 }]);
    setTimeout(() => controller.abort(), 500);
    await assert.rejects(rendering, (error) => error instanceof FetchError && error.reason === "aborted");
  } finally {
    await pool.close();
    await site.close();
  }
});

Deno.test("a tab is replaced after tabUses pages, and the new one renders as the old did", async () => {
  const site = await startJsSite({ products: 40, perPage: 10 });
  const pool = openTestPool(1, { tabUses: 2 });
  try {
    const signal = new AbortController().signal;
    const tabs = [];
    for (let page = 1; page <= 4; page++) {
      const { response, tab } = await render(pool, `${site.url}list/${page}`, signal);
      const html = new TextDecoder().decode(response.body);
      const links = html.match(/<a class="product" href="\/product\/\d+"/g) ?? [];
      assert.equal(links.length, 10, `listing ${page}: every product, "Load more" clicked`);
      assert.equal(response.url, `${site.url}list/${page}`);
      tabs.push(tab);
    }
    assert.equal(tabs[0], tabs[1], "a tab is reused");
    assert.notEqual(tabs[1], tabs[2], "and replaced after two pages");
    assert.equal(tabs[2], tabs[3]);
    assert.ok(tabs[1].page.isClosed(), "the old tab is closed");
  } finally {
    await pool.close();
    await site.close();
  }
});

Deno.test("pages render whole while Chromium is told after every page that memory is short", async () => {
  const site = await startJsSite({ products: 60, perPage: 10 });
  const pool = openTestPool(2, { pressureEvery: 1 });
  try {
    const signal = new AbortController().signal;
    const listings = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((page) => render(pool, `${site.url}list/${page}`, signal)),
    );
    for (const [index, { response }] of listings.entries()) {
      const html = new TextDecoder().decode(response.body);
      const ids = [...html.matchAll(/<a class="product" href="\/product\/(\d+)"/g)].map((match) => Number(match[1]));
      assert.deepEqual(ids, Array.from({ length: 10 }, (_, i) => index * 10 + i + 1));
    }
  } finally {
    await pool.close();
    await site.close();
  }
});

Deno.test("the tab Chromium starts with is closed: only the pool's tabs are open", async () => {
  const site = await startJsSite();
  const pool = openTestPool(2);
  try {
    const { tab } = await render(pool, site.url + "list/1", new AbortController().signal);
    const open = await tab.page.browser().pages();
    assert.deepEqual(open.map((page) => page.url()), [site.url + "list/1"]);
  } finally {
    await pool.close();
    await site.close();
  }
});

Deno.test("a hung Chromium's failure says it did not answer, in Netweir's words, not puppeteer's options", async () => {
  const site = await startJsSite();
  // Long enough for any call of a working browser on a loaded machine (load 26 on two cores took a start past 5 s),
  // and under the render's own 20 s, which would otherwise end it first.
  const pool = openTestPool(1, { protocolTimeoutMs: 10_000 });
  let pid: number | undefined;
  try {
    const signal = new AbortController().signal;
    await render(pool, site.url + "product/1", signal, []);
    pid = await pool.pid();
    await sendSignal(pid!, "SIGSTOP");
    await assert.rejects(render(pool, site.url + "product/2", signal, []), (error: Error) => {
      assert.match(error.message, /Chromium did not answer \S+ in time: it is hung, or starved of memory or CPU/);
      assert.doesNotMatch(error.message, /protocolTimeout/);
      return true;
    });
  } finally {
    if (pid !== undefined) await sendSignal(pid, "SIGCONT");
    await pool.close();
    await site.close();
  }
});

Deno.test("over its memory budget the pool lowers the tabs that render at once to one, and closes the idle ones", async () => {
  const site = await startJsSite({ products: 60, perPage: 10 });
  // A budget no Chromium fits in: every measure takes a tab away, down to one.
  const pool = openTestPool(3, { memoryBudget: 1, memoryCheckMs: 0 });
  try {
    const signal = new AbortController().signal;
    assert.equal(pool.tabsAllowed, 3);
    await Promise.all([1, 2, 3].map((page) => render(pool, `${site.url}list/${page}`, signal)));
    await waitUntil("the tabs to come down to one", async () => {
      // Each page given back measures again (memoryCheckMs 0), once the measure before has finished.
      await render(pool, `${site.url}product/1`, signal, []);
      return pool.tabsAllowed === 1;
    });
    const { tab } = await render(pool, `${site.url}product/2`, signal, []);
    await waitUntil("the idle tabs to close", async () => (await tab.page.browser().pages()).length === 1);
    const rendered = await Promise.all([4, 5].map((page) => render(pool, `${site.url}list/${page}`, signal)));
    assert.equal(rendered[0].tab, rendered[1].tab, "one tab renders them one after the other");
  } finally {
    await pool.close();
    await site.close();
  }
});
