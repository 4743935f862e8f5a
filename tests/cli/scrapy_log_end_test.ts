/**
 * A crawl logging in Scrapy's format ends its log as Scrapy does ("Closing spider", "Dumping Scrapy stats:" with a
 * Python dict, "Spider closed"), so ScrapydWeb's LogParser gets its pages, items and finish reason. Checked against
 * LogParser's reading restated in tests/helpers/logparser_reading.ts (from its regexes, not a copy of it). One real
 * `netweir crawl` of a shop on 127.0.0.1 whose markup breaks halfway, with a monitor that fails: about 3 s.
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { scrapyStatsDict } from "../../src/cli/scrapy_closing.ts";
import { breakingShopSpider, startBreakingShop } from "../helpers/breaking_shop.ts";
import { readLikeLogParser } from "../helpers/logparser_reading.ts";
import { runCli, withTempDir } from "./_run.ts";

Deno.test("the stats dict is Python's, keys sorted, in Scrapy's names; strings that would break LogParser's reading are cleaned", () => {
  const dict = scrapyStatsDict({
    start_time: "2026-12-01T10:00:00.000Z",
    finish_reason: "finished",
    elapsed_seconds: 1.5,
    requests: 11,
    pages: 10,
    items: 7,
    items_dropped: 1,
    errors: 0,
    status: { "200": 9, "404": 1 },
    dropped: { offsite: 2 },
    last_error: `it's a "quoted" {brace} \\ path`,
    finish_time: null,
    series: [[0, 1, 2]],
    monitors: { passed: false, checked: ["min_items"], failed: [{ monitor: "min_items", message: "x" }] },
  });
  assert.equal(
    dict,
    `{'downloader/request_count': 11,
 'downloader/response_status_count/200': 9,
 'downloader/response_status_count/404': 1,
 'dropped/offsite': 2,
 'elapsed_time_seconds': 1.5,
 'errors': 0,
 'finish_reason': 'finished',
 'finish_time': None,
 'item_dropped_count': 1,
 'item_scraped_count': 7,
 'last_error': 'its a quoted brace  path',
 'monitors/failed': 'min_items',
 'monitors/passed': 'false',
 'response_received_count': 10,
 'start_time': '2026-12-01T10:00:00.000Z'}`,
  );
  const reading = readLikeLogParser(`2026-12-01 10:00:02 [netweir] INFO: Dumping Scrapy stats:\n${dict}`);
  assert.equal(reading.pages, 10);
  assert.equal(reading.items, 7);
  assert.equal(reading.finishReason, "finished");
  assert.equal(reading.crawlerStats?.last_error, "its a quoted brace  path");
});

Deno.test("a crawl in Scrapy's log format ends with Scrapy's closing block, which LogParser reads for pages, items and reason", async () => {
  const shop = startBreakingShop(6);
  try {
    await withTempDir(async (dir) => {
      const file = join(dir, "shop.ts");
      await writeFile(file, breakingShopSpider(new URL("../../mod.ts", import.meta.url).href, shop.url));
      const statsFile = join(dir, "stats.json");
      const result = await runCli([
        "crawl",
        file,
        "-o",
        join(dir, "items.jsonl"),
        "--stats-file",
        statsFile,
        "-s",
        "obey_robots_txt=false",
        "-s",
        "log_format=scrapy",
        "-s",
        `monitors={"coverage": [{"field": "title", "min": 1}]}`,
      ]);
      assert.equal(result.code, 1, "the coverage monitor failed");
      const stats = JSON.parse(await readFile(statsFile, "utf8"));
      const lines = result.stderr.trimEnd().split("\n");
      // The last lines: the monitor's, then Scrapy's three, the stats dict over several lines between them.
      assert.match(lines.at(-1)!, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[netweir\] INFO: Spider closed \(finished\)$/);
      const dumping = lines.findIndex((line) => line.endsWith("INFO: Dumping Scrapy stats:"));
      assert.ok(dumping > 0, result.stderr);
      assert.match(lines[dumping - 1], /INFO: Closing spider \(finished\)$/);
      assert.equal(
        lines[dumping - 2],
        "netweir: monitor coverage.title failed: title in 5 of 10 items (50%), fewer than 100%",
      );
      const reading = readLikeLogParser(result.stderr);
      assert.equal(reading.progressLines >= 1, true, "the progress line at the start");
      assert.deepEqual([reading.pages, reading.items, reading.finishReason], [stats.pages, stats.items, "finished"]);
      assert.deepEqual([stats.pages, stats.items], [11, 10]);
      assert.equal(reading.crawlerStats?.["monitors/passed"], "false");
      assert.equal(reading.crawlerStats?.["downloader/response_status_count/200"], 11);
    });
  } finally {
    await shop.close();
  }
});

Deno.test("in netweir's own log format there is no Scrapy block", async () => {
  const shop = startBreakingShop();
  try {
    await withTempDir(async (dir) => {
      const file = join(dir, "shop.ts");
      await writeFile(file, breakingShopSpider(new URL("../../mod.ts", import.meta.url).href, shop.url));
      const result = await runCli(["crawl", file, "-o", join(dir, "items.jsonl"), "-s", "obey_robots_txt=false"]);
      assert.equal(result.code, 0, result.stderr);
      assert.doesNotMatch(result.stderr, /Dumping Scrapy stats|Spider closed/);
      assert.match(result.stderr, /crawl finished \{/);
    });
  } finally {
    await shop.close();
  }
});
