/**
 * Item-quality monitors, through the real `netweir crawl` against a shop served on 127.0.0.1 whose product pages
 * change their markup halfway: the second half have no `<h1 class="title">`, so the spider's selector finds nothing
 * there, as when a site is redesigned in the middle of a night's crawl. The coverage monitor fails, the crawl exits
 * 1 and its stats say which monitor; the same crawl of an intact shop exits 0.
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runCli, withTempDir } from "./_run.ts";
import { breakingShopSpider, startBreakingShop } from "../helpers/breaking_shop.ts";

const MOD_URL = new URL("../../mod.ts", import.meta.url).href;
const PRODUCTS = 10;

const startShop = (brokenFrom = Infinity) => startBreakingShop(brokenFrom, PRODUCTS);

/** Runs `body` with a shop (see startShop) and a temporary directory, and closes the shop whatever happens. */
async function withShop(brokenFrom: number, body: (shop: ReturnType<typeof startShop>, dir: string) => Promise<void>) {
  const shop = startShop(brokenFrom);
  try {
    await withTempDir((dir) => body(shop, dir));
  } finally {
    await shop.close();
  }
}

/** The spider: follows every product and yields its title and price; `extra` adds class members. */
function spiderSource(start: string, extra = ""): string {
  return breakingShopSpider(MOD_URL, start, extra);
}

interface Run {
  code: number;
  stderr: string;
  stats: Record<string, unknown>;
  items: Array<Record<string, unknown>>;
}

/** Crawls the shop with `settings` (-s pairs), with the stats and the items written to files it reads back. */
async function crawl(dir: string, source: string, settings: string[]): Promise<Run> {
  const file = join(dir, "shop.ts");
  await writeFile(file, source);
  const stats = join(dir, "stats.json");
  const items = join(dir, "items.json");
  const args = ["crawl", file, "-O", items, "--stats-file", stats, "-s", "obey_robots_txt=false", "-s", "retries=0"];
  for (const pair of settings) args.push("-s", pair);
  const result = await runCli(args);
  const read = async (path: string) => JSON.parse(await readFile(path, "utf8").catch(() => "null"));
  return { code: result.code, stderr: result.stderr, stats: await read(stats), items: await read(items) };
}

/** The lines of standard error that say a monitor failed. */
function monitorLines(stderr: string): string[] {
  return stderr.split("\n").filter((line) => line.startsWith("netweir: monitor "));
}

const COVERAGE =
  `monitors={"min_items": 5, "coverage": [{"field": "title", "min": 0.99}, {"field": "price", "min": 1}]}`;

Deno.test("a crawl whose title selector breaks halfway fails the coverage monitor and exits 1", async () => {
  await withShop(6, async (shop, dir) => {
    const run = await crawl(dir, spiderSource(shop.url), [COVERAGE]);
    assert.equal(run.code, 1, run.stderr);
    assert.deepEqual(monitorLines(run.stderr), [
      "netweir: monitor coverage.title failed: title in 5 of 10 items (50%), fewer than 99%",
    ]);
    assert.equal(run.items.length, PRODUCTS, "a coverage monitor drops nothing");
    assert.deepEqual(run.stats.monitors, {
      passed: false,
      checked: ["min_items", "coverage.title", "coverage.price"],
      failed: [{ monitor: "coverage.title", message: "title in 5 of 10 items (50%), fewer than 99%" }],
    });
    assert.equal(run.stats.items_with_title, 5);
    assert.equal(run.stats.items_with_price, 10);
  });
});

Deno.test("the same crawl of a shop whose every page has its title passes its monitors and exits 0", async () => {
  await withShop(Infinity, async (shop, dir) => {
    const run = await crawl(dir, spiderSource(shop.url), [COVERAGE]);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(monitorLines(run.stderr), []);
    assert.deepEqual(run.stats.monitors, {
      passed: true,
      checked: ["min_items", "coverage.title", "coverage.price"],
      failed: [],
    });
  });
});

const SCHEMA = {
  type: "object",
  required: ["url", "title", "price"],
  properties: { title: { type: "string", minLength: 1 }, price: { type: "number", minimum: 1 } },
};

Deno.test("items breaking the schema are dropped and counted per field, and the dropped monitor fails", async () => {
  await withShop(6, async (shop, dir) => {
    const monitors = { schema: SCHEMA, max_invalid: 5, max_dropped: 0 };
    const run = await crawl(dir, spiderSource(shop.url), [`monitors=${JSON.stringify(monitors)}`]);
    assert.equal(run.code, 1, run.stderr);
    assert.deepEqual(run.items.map((item) => item.title).sort(), ["Book 1", "Book 2", "Book 3", "Book 4", "Book 5"]);
    assert.equal(run.stats.items_invalid, 5);
    assert.equal(run.stats.items_invalid_title, 5);
    assert.equal(run.stats.items_invalid_price, undefined, "every price matched the schema");
    assert.deepEqual(run.stats.dropped, {});
    assert.equal(run.stats.items_dropped_schema, 5);
    assert.deepEqual(monitorLines(run.stderr), ["netweir: monitor max_dropped failed: 5 items dropped, more than 0"]);
    assert.deepEqual((run.stats.monitors as { checked: string[] }).checked, ["max_dropped", "schema"]);
  });
});

Deno.test("flagged items breaking the schema are written, and the schema monitor fails naming the fields", async () => {
  await withShop(9, async (shop, dir) => {
    const monitors = { schema: SCHEMA, invalid_items: "flag" };
    const run = await crawl(dir, spiderSource(shop.url), [`monitors=${JSON.stringify(monitors)}`]);
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.items.length, PRODUCTS);
    assert.equal(run.stats.items_dropped, 0);
    assert.deepEqual(monitorLines(run.stderr), [
      "netweir: monitor schema failed: 2 items broke the schema (title: 2), more than 0",
    ]);
  });
});

Deno.test("a spider's own monitors are judged, and -s monitors=null replaces them for one run", async () => {
  const own = `override settings = new Settings({ monitors: { min_items: 11 } });`;
  await withShop(Infinity, async (shop, dir) => {
    const strict = await crawl(dir, spiderSource(shop.url, own), []);
    assert.equal(strict.code, 1, strict.stderr);
    assert.deepEqual(monitorLines(strict.stderr), [
      "netweir: monitor min_items failed: 10 items written, fewer than 11",
    ]);
    const lifted = await crawl(dir, spiderSource(shop.url, own), ["monitors=null"]);
    assert.equal(lifted.code, 0, lifted.stderr);
    assert.equal(lifted.stats.monitors, undefined, "a crawl without monitors has no verdict");
  });
});

Deno.test("monitors that are not rules, or a schema ajv refuses, exit 2 with one line before anything is fetched", async () => {
  await withShop(Infinity, async (shop, dir) => {
    const cases: Array<[string, string]> = [
      [`monitors={"min_itemz": 5}`, "netweir: setting monitors has an unknown rule min_itemz (known: min_items, "],
      [`monitors={"coverage": [{"field": "title"}]}`, "netweir: setting monitors rule coverage[0] must be"],
      [`monitors=[1]`, "netweir: setting monitors must be an object"],
      [`monitors={"schema": {"type": "nope"}}`, "netweir: setting monitors: schema is not a valid JSON Schema: "],
    ];
    for (const [setting, start] of cases) {
      const run = await crawl(dir, spiderSource(shop.url), [setting]);
      assert.equal(run.code, 2, `${setting}: ${run.stderr}`);
      const lines = run.stderr.trimEnd().split("\n");
      assert.equal(lines.length, 1, run.stderr);
      assert.ok(lines[0].startsWith(start), lines[0]);
    }
    assert.equal(shop.hits(), 0);
  });
});
