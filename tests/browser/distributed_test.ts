/** Rendering in a shared crawl: three processes on one Redis, each rendering, one killed; nothing is missing. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startCli } from "../helpers/cli.ts";
import { chromiumOf, descendants, processes, waitGone } from "../helpers/chromium.ts";
import { startJsSite } from "../helpers/js_site.ts";
import { readJsonLines } from "../helpers/json_lines.ts";
import { startRedis } from "../helpers/redis.ts";
import { withTempDir } from "../cli/_run.ts";
import { waitUntil } from "../helpers/wait.ts";

const SPIDER = new URL("./fixtures/js_shop_spider.ts", import.meta.url).pathname;
const PRODUCTS = 80;

const items = readJsonLines;

Deno.test("three rendering processes on one Redis, one SIGKILLed: every product is scraped, no Chromium left", async () => {
  const site = await startJsSite({ products: PRODUCTS, perPage: 10 });
  const redis = await startRedis();
  try {
    await withTempDir(async (dir) => {
      const start = (name: string, delay: number) => {
        const args = [
          "crawl",
          SPIDER,
          "-a",
          `site=${site.url}`,
          "-a",
          "render_products=1",
          "-o",
          join(dir, `items-${name}.jsonl`),
          "--queue",
          redis.url,
          ...[
            // 6 s: its calls may take 2 s each (a third of it) before they count as failed. At 3 s a survivor on a
            // machine loaded far past CI's stopped with "lost the queue: no heartbeat got through for 3 s".
            "queue_lease=6",
            "queue_idle=2",
            `min_delay=${delay}`,
            "autothrottle=false",
            "browser_tabs=2",
            "concurrency=2",
          ]
            .flatMap((setting) => ["-s", setting]),
        ];
        return { name, process: startCli(args, { timeoutMs: 120_000 }), items: join(dir, `items-${name}.jsonl`) };
      };
      const victim = start("victim", 0.3);
      await waitUntil("the victim renders", async () => (await items(victim.items)).length >= 1);
      const survivors = [start("one", 0.02), start("two", 0.02)];
      await waitUntil("the victim has written 3 items", async () => (await items(victim.items)).length >= 3);
      const browsers = chromiumOf(descendants(await processes(), victim.process.pid));
      assert.ok(browsers.length > 0, "the victim was rendering when it was killed");
      await victim.process.kill("SIGKILL");
      await victim.process.wait();
      assert.deepEqual(await waitGone(browsers.map((process) => process.pid)), [], "the victim's Chromium is gone");
      for (const survivor of survivors) {
        const result = await survivor.process.wait();
        assert.equal(result.code, 0, result.stderr);
      }
      const scraped = (await Promise.all([victim, ...survivors].map((crawler) => items(crawler.items)))).flat();
      const names = new Set(scraped.map((item) => item.name));
      const missing = Array.from({ length: PRODUCTS }, (_, i) => `Product ${i + 1}`).filter((name) => !names.has(name));
      assert.deepEqual(missing, []);
      for (const survivor of survivors) {
        const own = await items(survivor.items);
        assert.ok(own.length > 0, `${survivor.name} took part`);
        assert.ok(own.every((item) => item.rendered === true), `${survivor.name} rendered its pages`);
      }
    });
  } finally {
    await redis.stop();
    await site.close();
  }
});
