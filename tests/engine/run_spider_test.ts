/**
 * runSpider() runs the same assembly as `netweir crawl`: callback workers when it is told the spider's file, and
 * signal handling only when the caller asks for it (a library leaves Ctrl-C to the program using it).
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runSpider, type SpiderClass } from "../../mod.ts";
import { startScript } from "../helpers/cli.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { withTempDir } from "../cli/_run.ts";
import { waitUntil } from "../helpers/wait.ts";

const MOD = JSON.stringify(new URL("../../mod.ts", import.meta.url).href);

/** A spider whose callback says whether it ran in a worker, and carries its `tag` argument. */
const SHOP = `import { type Page, Request, Spider } from ${MOD};
export class Shop extends Spider {
  site = "";
  tag = "";
  override async *start() {
    yield new Request({ url: this.site });
  }
  override *parse(page: Page) {
    for (const href of page.css("article.product_pod h3 a").attrs("href")) {
      yield page.follow(href, { callback: this.parseBook });
    }
  }
  parseBook(page: Page) {
    const inWorker = typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== "undefined";
    return { url: page.url, tag: this.tag, inWorker };
  }
}
`;

Deno.test("runSpider runs callbacks in workers when given the spider's file, with its arguments", async () => {
  const site = await startFixtureSite({ books: 6 });
  try {
    await withTempDir(async (dir) => {
      const file = join(dir, "shop.ts");
      await writeFile(file, SHOP);
      const { Shop } = await import(new URL(`file://${file}`).href) as { Shop: SpiderClass };
      const out = join(dir, "items.jsonl");
      const stats = await runSpider(Shop, {
        spiderFile: new URL(`file://${file}`),
        spiderArgs: [`site=${site.url}shop/`, "tag=w"],
        settings: { workers: 2, logLevel: "error" },
        output: [out],
      });
      const items = (await readFile(out, "utf8")).trim().split("\n").map((line) => JSON.parse(line));
      assert.equal(items.length, 6);
      assert.ok(items.every((item) => item.inWorker === true && item.tag === "w"), JSON.stringify(items));
      assert.equal(stats.finish_reason, "finished");
    });
  } finally {
    await site.close();
  }
});

/** Runs runSpider on a callback that never returns (see the fixture), with or without `stopOnSignals`. */
const STUCK = fileURLToPath(new URL("./fixtures/stuck_run_spider.ts", import.meta.url));

Deno.test("runSpider with stopOnSignals stops cleanly on SIGINT and returns its stats", async () => {
  const site = await startFixtureSite({ books: 1 });
  try {
    const crawl = startScript(STUCK, [site.url, "signals", "hang"]);
    await waitUntil("/hang requested", () => site.hits("/hang") > 0, 30_000);
    await crawl.kill("SIGINT");
    const result = await crawl.wait();
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout.trim()), { finish_reason: "shutdown" });
  } finally {
    await site.close();
  }
});

Deno.test("runSpider with stopOnSignals ends the process on a second SIGINT, by SIGINT (status 130 in a shell)", async () => {
  const site = await startFixtureSite({ books: 1 });
  try {
    const crawl = startScript(STUCK, [site.url, "signals", "echo"]);
    await crawl.waitFor(/in callback/);
    await crawl.kill("SIGINT");
    await crawl.waitFor(/stopping: shutdown/);
    await crawl.kill("SIGINT");
    const result = await crawl.wait();
    // Ended by the signal itself, from the thread that hears signals (src/runtime/stop_signal_watch.ts).
    assert.equal(result.signal, "SIGINT", `code ${result.code}: ${result.stderr}`);
    assert.match(result.stderr, /second SIGINT: stopping at once/);
  } finally {
    await site.close();
  }
});

Deno.test("runSpider installs no signal handler by default: SIGINT ends the process as it would without Netweir", async () => {
  const site = await startFixtureSite({ books: 1 });
  try {
    {
      const crawl = startScript(STUCK, [site.url, "default", "echo"]);
      await crawl.waitFor(/in callback/);
      await crawl.kill("SIGINT");
      const result = await crawl.wait();
      assert.equal(result.signal, "SIGINT", `code ${result.code}: ${result.stderr}`);
      assert.doesNotMatch(result.stderr, /stopping: shutdown/);
    }
  } finally {
    await site.close();
  }
});
