/**
 * What it costs to give a tab back clean (src/browser/tab.ts `cleanTab`): the time `release` takes for a page that
 * stored something in localStorage, with the crawl's cookies kept (storage cleared) and with `cookies: false`
 * (storage and the context's cookies cleared). Real Chromium, a page served on 127.0.0.1, one tab reused throughout.
 * Prints, asserts nothing. The whole-crawl view is `scripts/bench/render.ts 200 4 --only=netweir [--set=cookies=false]`.
 *
 *   deno run -A scripts/bench/tab_cleaning.ts [PAGES=50]
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { openTestPool } from "../../tests/helpers/tab_pool.ts";
import { median } from "./median.ts";

const pages = Number(Deno.args[0] ?? 50);
const server = createServer((_request, response) => {
  response.setHeader("content-type", "text/html");
  response.end("<!doctype html><p>page</p><script>localStorage.setItem('left', 'behind')</script>");
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const site = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
console.log(`${pages} pages, one tab; load average ${Deno.loadavg().map((load) => load.toFixed(1)).join(" ")}`);
console.log("| cookies | release median | release max |");
console.log("| ------- | -------------- | ----------- |");
for (const cookies of [true, false]) {
  const pool = openTestPool(1, { cookies });
  const signal = new AbortController().signal;
  const times: number[] = [];
  // The first page starts Chromium and is not counted.
  for (let i = 0; i <= pages; i++) {
    const tab = await pool.acquire(undefined, signal);
    await tab.page.goto(`${site}${i}`);
    const started = performance.now();
    await pool.release(tab, true);
    if (i > 0) times.push(performance.now() - started);
  }
  await pool.close();
  const max = Math.max(...times);
  console.log(`| ${cookies} | ${median(times).toFixed(1)} ms | ${max.toFixed(1)} ms |`);
}
server.close();
