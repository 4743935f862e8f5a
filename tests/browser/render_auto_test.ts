/**
 * `render: "auto"` against Debian's Chromium and a real shop on 127.0.0.1 (tests/helpers/auto_site.ts) whose listings
 * are built by script and whose products and makers are plain HTML. About 70 s for the file on a loaded 2-core machine, most of it Chromium and the two processes of the last test.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { readFile } from "node:fs/promises";
import type { Item } from "../../mod.ts";
import { crawl } from "../helpers/crawl_in_process.ts";
import { startAutoSite } from "../helpers/auto_site.ts";
import { AutoShop } from "./fixtures/auto_shop_spider.ts";
import { startRedis } from "../helpers/redis.ts";
import { startCli } from "../helpers/cli.ts";
import { withTempDir } from "../cli/_run.ts";

const SPIDER = new URL("./fixtures/auto_shop_spider.ts", import.meta.url).pathname;

function shop(site: string, render: string): AutoShop {
  const spider = new AutoShop();
  spider.site = site;
  spider.render = render;
  return spider;
}

const sorted = (items: Item[]) => items.map((item) => JSON.stringify(item)).sort();

Deno.test("auto renders the script-built listings, stops rendering products and makers after the sample, and scrapes what rendering everything scrapes", async () => {
  const site = await startAutoSite({ products: 40, perPage: 10, perMaker: 5 });
  const concurrency = 4;
  const settings = { concurrency, perDomain: concurrency, browserTabs: 2, renderAutoRecheck: 0, obeyRobotsTxt: false };
  try {
    const all = await crawl(shop(site.start, "all"), settings);
    assert.equal(all.items.length, 40 + 8);
    const hitsBefore = site.requests.length;

    const auto = await crawl(shop(site.start, "auto"), settings);
    assert.deepEqual(sorted(auto.items), sorted(all.items), "the same items, each once");
    const origin = new URL(site.origin).host;
    const stat = (kind: string, name: string) => Number(auto.stats[`render.auto.${kind} ${origin}${name}`] ?? 0);
    // Listings: every one rendered, every comparison differed (the plain page has no product links).
    assert.equal(stat("parse", "/list/*.rendered"), 4);
    assert.equal(stat("parse", "/list/*.plain"), 0);
    assert.ok(stat("parse", "/list/*.differed") >= 1);
    // Products and makers: the sample (3 pages), then plain HTTP.
    for (const [kind, total] of [["product", 40], ["maker", 8]] as const) {
      const rendered = stat(kind, `/${kind}/*.rendered`);
      const plain = stat(kind, `/${kind}/*.plain`);
      assert.equal(rendered + plain, total, `${kind}: every page once`);
      // While the sample is out, the kind's other pages wait for its verdict instead of rendering too.
      assert.equal(rendered, 3, `${kind}: ${rendered} rendered`);
      assert.equal(stat(kind, `/${kind}/*.differed`), 0);
    }
    assert.equal(auto.stats["render.auto.kinds_plain"], 2);
    assert.equal(auto.stats["render.auto.kinds_rendered"], 1);
    // One log line per decision: the listings render, products and makers go plain.
    const decisions = auto.lines.filter((line) => line.includes("render auto:") && line.includes("from now on"));
    assert.equal(decisions.length, 3, decisions.join("\n"));
    assert.ok(decisions.some((line) => line.includes("/list/* renders from now on") && line.includes("links: ")));
    // The comparison costs no request: the server saw each page once, as in the all-rendered crawl.
    const autoHits = site.requests.slice(hitsBefore).filter((path) => /^\/(list|product|maker)\//.test(path));
    assert.equal(autoHits.length, 4 + 40 + 8);
    assert.equal(new Set(autoHits).size, autoHits.length);
  } finally {
    await site.close();
  }
});

Deno.test("a kind that starts needing JavaScript part way through is switched back to rendering by the re-check", async () => {
  // Products 1-20 are plain HTML, 21-60 built by script; one plain page in 4 is re-checked.
  const site = await startAutoSite({ products: 60, perPage: 10, perMaker: 60, scriptFrom: 21 });
  const concurrency = 2;
  try {
    const auto = await crawl(shop(site.start, "auto"), {
      concurrency,
      perDomain: concurrency,
      browserTabs: 2,
      renderAutoSample: 3,
      renderAutoRecheck: 0.25,
      obeyRobotsTxt: false,
    });
    const origin = new URL(site.origin).host;
    const kind = `product ${origin}/product/*`;
    assert.equal(auto.stats["render.auto.switched_back"], 1);
    // The re-checks under way when the first one differed may differ too; the kind switches once.
    assert.ok(Number(auto.stats[`render.auto.${kind}.differed`]) >= 1);
    const line = auto.lines.find((text) => text.includes(`render auto: ${kind} renders from now on`));
    assert.ok(line?.includes("re-checked"), auto.lines.filter((text) => text.includes("render auto")).join("\n"));
    const products = auto.items.filter((item) => String(item.url).includes("/product/"));
    assert.equal(products.length, 60, "every product page gave one item");
    // Script-built pages fetched plainly before the re-check caught the change give an empty item. Each plain page is
    // followed within 3 by a re-check, and at most `concurrency` re-checks are out before the first verdict: so at most
    // 3 x concurrency of them (docs/design/browser.md).
    const missed = products.filter((item) => item.name === "");
    assert.ok(missed.length <= 3 * concurrency, `${missed.length} products missed`);
    const late = products.filter((item) => Number(String(item.url).split("/").at(-1)) > 30);
    assert.ok(late.every((item) => item.name !== ""), "every product after the switch is rendered");
  } finally {
    await site.close();
  }
});

Deno.test("a shared-queue crawl with -s render=auto: two processes on one Redis scrape every page once, most over plain HTTP", async () => {
  const site = await startAutoSite({ products: 60, perPage: 10, perMaker: 5 });
  const redis = await startRedis();
  try {
    await withTempDir(async (dir) => {
      const start = (name: string) => {
        const output = join(dir, `items-${name}.jsonl`);
        const stats = join(dir, `stats-${name}.json`);
        const args = [
          "crawl",
          SPIDER,
          ...["-a", `site=${site.start}`, "-a", "render=none", "-o", output, "--stats-file", stats],
          ...["--queue", redis.url],
          ...["render=auto", "queue_idle=2", "browser_tabs=2", "concurrency=3", "obey_robots_txt=false", "min_delay=0"]
            .flatMap((setting) => ["-s", setting]),
        ];
        return { process: startCli(args, { timeoutMs: 120_000 }), output, stats };
      };
      const crawlers = [start("one"), start("two")];
      for (const crawler of crawlers) {
        const result = await crawler.process.wait();
        assert.equal(result.code, 0, result.stderr);
      }
      const items = (await Promise.all(crawlers.map((crawler) => readFile(crawler.output, "utf8"))))
        .flatMap((text) => text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line)));
      const names = items.filter((item) => item.name !== undefined).map((item) => item.name).sort();
      assert.deepEqual(names, Array.from({ length: 60 }, (_, i) => `Product ${i + 1}`).sort());
      assert.equal(items.filter((item) => item.maker !== undefined).length, 12);
      const stats = await Promise.all(
        crawlers.map(async (crawler) => JSON.parse(await readFile(crawler.stats, "utf8"))),
      );
      const sum = (name: string) => stats.reduce((total, record) => total + Number(record[name] ?? 0), 0);
      assert.equal(sum("pages"), 6 + 60 + 12);
      assert.equal(sum("render.auto.rendered") + sum("render.auto.plain"), 6 + 60 + 12);
      assert.ok(sum("render.auto.plain") >= 40, `${sum("render.auto.plain")} pages went over plain HTTP`);
      for (let id = 1; id <= 60; id++) assert.equal(site.hits(`/product/${id}`), 1);
    });
  } finally {
    await redis.stop();
    await site.close();
  }
});
