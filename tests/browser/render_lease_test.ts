/**
 * In a shared crawl, a process leases no more rendered requests than it has free tabs: the rest stay in the queue for
 * another process, rather than waiting here for a tab while that one idles. Two `netweir crawl` processes on a real
 * redis-server, each with one tab and concurrency 8, over 8 rendered pages that hold their tab 2 s each. About 25 s.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { startCli } from "../helpers/cli.ts";
import { readJsonLines } from "../helpers/json_lines.ts";
import { startRedis } from "../helpers/redis.ts";
import { withTempDir } from "../cli/_run.ts";

const SPIDER = new URL("./fixtures/held_tabs_spider.ts", import.meta.url).pathname;
const PAGES = 8;

const items = readJsonLines;

Deno.test("two rendering processes with one tab each share the rendered pages: the first does not lease them all", async () => {
  const server = createServer((_request, response) => {
    response.setHeader("content-type", "text/html");
    response.end("<!doctype html><title>held</title><p>held</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const site = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const redis = await startRedis();
  try {
    await withTempDir(async (dir) => {
      const start = (name: string) => {
        const output = join(dir, `items-${name}.jsonl`);
        const settings = ["concurrency=8", "browser_tabs=1", "queue_idle=2", "autothrottle=false", "per_domain=8"];
        const args = [
          "crawl",
          SPIDER,
          "-a",
          `site=${site}`,
          "-a",
          `pages=${PAGES}`,
          "-o",
          output,
          "--queue",
          redis.url,
        ];
        return { process: startCli([...args, ...settings.flatMap((s) => ["-s", s])], { timeoutMs: 120_000 }), output };
      };
      // Started together: whichever leases first would, without the limit, take all eight pages (concurrency 8) and
      // render them one at a time, while the other found the queue empty.
      const first = start("first");
      const second = start("second");
      for (const crawler of [first, second]) {
        const result = await crawler.process.wait();
        assert.equal(result.code, 0, result.stderr);
      }
      const mine = await items(first.output);
      const theirs = await items(second.output);
      const urls = [...mine, ...theirs].map((item) => item.url).sort();
      assert.deepEqual(urls, Array.from({ length: PAGES }, (_, i) => `${site}${i}`).sort(), "every page once");
      const counts = `the first process rendered ${mine.length} page(s), the second ${theirs.length}`;
      assert.ok(mine.length >= 2 && theirs.length >= 2, counts);
      assert.ok([...mine, ...theirs].every((item) => item.rendered === true));
    });
  } finally {
    await redis.stop();
    server.close();
  }
});
