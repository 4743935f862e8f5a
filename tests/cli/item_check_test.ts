import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { parseCsv } from "../output/csv_parse.ts";
import { fixture, runCli, withTempDir } from "./_run.ts";

Deno.test("items that are not plain JSON are converted or refused once, so every feed holds the same items", async () => {
  const site = await startFixtureSite({ books: 3 });
  try {
    await withTempDir(async (dir) => {
      const out = (extension: string) => join(dir, `items.${extension}`);
      const result = await runCli([
        "crawl",
        fixture("odd_items_spider.ts"),
        "-a",
        `site=${site.url}shop/`,
        ...["json", "jsonl", "csv", "xml"].flatMap((extension) => ["-O", out(extension)]),
        "--stats-file",
        join(dir, "stats.json"),
      ]);
      assert.equal(result.code, 0, result.stderr);
      const json = JSON.parse(await readFile(out("json"), "utf8"));
      const lines = (await readFile(out("jsonl"), "utf8")).trim().split("\n").map((line) => JSON.parse(line));
      const csv = parseCsv(await readFile(out("csv"), "utf8"));
      const xmlKinds = [...(await readFile(out("xml"), "utf8")).matchAll(/<kind>([^<]*)<\/kind>/g)].map((m) => m[1]);
      const kinds = ["plain", "selection", "date", "url"];
      assert.deepEqual(json.map((item: { kind: string }) => item.kind), kinds);
      assert.deepEqual(lines, json);
      assert.deepEqual(xmlKinds, kinds);
      assert.equal(csv.length, 1 + kinds.length);
      // A Selection of one element is its text, a Date its ISO string, a URL its href.
      assert.equal(json[1].title, json[0].title);
      assert.notEqual(json[1].title, "");
      assert.equal(json[2].seen, "2026-01-02T03:04:05.000Z");
      assert.equal(json[3].page, `${site.url}shop/`);
      // Each refused item is one line naming the field and the page, and counted by reason.
      const page = `${site.url}shop/`;
      for (
        const expected of [
          `dropped an item from ${page}: field tags is a Map, which has no JSON form; use Object.fromEntries(map)`,
          `dropped an item from ${page}: field tags is a Set, which has no JSON form; use [...set]`,
          `dropped an item from ${page}: field price is a Price, which has no JSON form`,
          `dropped an item from ${page}: field stock.count is a BigInt; convert it to a string or a number first`,
          `dropped an item from ${page}: field rating is NaN, which JSON cannot hold`,
        ]
      ) {
        assert.equal(result.stderr.split("\n").filter((line) => line.includes(expected)).length, 1, expected);
      }
      const stats = JSON.parse(await readFile(join(dir, "stats.json"), "utf8"));
      assert.equal(stats.items, 4);
      assert.equal(stats.items_dropped, 5);
      assert.equal(stats.items_dropped_not_json, 3);
      assert.equal(stats.items_dropped_bigint, 1);
      assert.equal(stats.items_dropped_not_finite, 1);
    });
  } finally {
    await site.close();
  }
});
