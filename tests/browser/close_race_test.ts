/**
 * A crawl that stops while a page is on its way to the browser: nothing may start a Chromium after the browser side
 * was closed, since the crawl's process would then exit with it still running. Each test watches for its own
 * Chromium through a marked executable, so a process started by mistake is seen even if it is never connected.
 */
import assert from "node:assert/strict";
import { FetchError } from "../../src/errors.ts";
import { Fetchers } from "../../src/engine/fetchers.ts";
import { launchChromium } from "../../src/browser/chromium.ts";
import { findBrowser } from "../../src/browser/find_browser.ts";
import { Request } from "../../src/spider/request.ts";
import { markedBrowser, markedChromium } from "../helpers/chromium.ts";
import { openTestPool } from "../helpers/tab_pool.ts";
import { withTempDir } from "../cli/_run.ts";

/** Whether a Chromium with `mark` shows up within a moment (it would have been spawned by now). */
async function startedAny(mark: string): Promise<boolean> {
  await new Promise((resolve) => setTimeout(resolve, 500));
  return (await markedChromium(mark)).length > 0;
}

Deno.test("a tab asked for just before the pool closes starts no Chromium", async () => {
  await withTempDir(async (dir) => {
    const mark = `race-${crypto.randomUUID()}`;
    const pool = openTestPool(2, { executable: await markedBrowser(dir, mark) });
    // acquire() has taken its slot and is waiting for its turn to run; close() comes in between.
    const acquiring = pool.acquire(undefined);
    const closing = pool.close();
    await assert.rejects(acquiring, /the browser is closed/);
    await closing;
    assert.equal(await pool.pid(), undefined);
    assert.equal(await startedAny(mark), false, "a Chromium was started after the pool closed");
  });
});

Deno.test("a tab asked for with a signal already aborted starts no Chromium", async () => {
  await withTempDir(async (dir) => {
    const mark = `aborted-${crypto.randomUUID()}`;
    const pool = openTestPool(2, { executable: await markedBrowser(dir, mark) });
    const controller = new AbortController();
    controller.abort(new Error("the crawl is stopping"));
    await assert.rejects(pool.acquire(undefined, controller.signal), /the crawl is stopping/);
    assert.equal(await startedAny(mark), false, "a Chromium was started for a page given up on");
    // The slot was given back: a page asked for afterwards gets a tab (and so a browser, closed again here).
    const tab = await pool.acquire(undefined);
    await pool.release(tab, true);
    await pool.close();
  });
});

Deno.test("a rendered page reaching the fetchers after they closed makes no browser", async () => {
  let made = 0;
  const fetchers = new Fetchers({ fetch: () => Promise.reject(new Error("not used")) }, () => {
    made++;
    return Promise.reject(new Error("no browser here"));
  });
  await fetchers.close();
  const request = new Request({ url: "http://127.0.0.1:1/", render: true });
  await assert.rejects(
    fetchers.fetcherFor(request),
    (error) => error instanceof FetchError && error.reason === "closed",
  );
  assert.equal(made, 0);
  // Plain requests still get the HTTP fetcher (robots.txt and the like may finish after the browser closed).
  await fetchers.fetcherFor(new Request({ url: "http://127.0.0.1:1/" }));
});

Deno.test("a browser closed after a page ends by itself, not by SIGKILL", async () => {
  const chromium = await launchChromium(findBrowser(null), { protocolTimeoutMs: 30_000 });
  const page = await chromium.browser.newPage();
  await page.goto("data:text/html,<p>a page</p>");
  await chromium.close();
  // Browser.close answers a moment before the process ends; a SIGKILL sent then cut Chromium's own shutdown short.
  assert.equal(await chromium.exited, null);
});
