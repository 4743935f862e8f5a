import assert from "node:assert/strict";
import { SettingsError } from "../../src/errors.ts";
import { SCRAPY_SETTINGS } from "../../src/settings/scrapy_settings.ts";
import { Settings } from "../../src/settings/settings.ts";
import { findSetting } from "../../src/settings/table.ts";

function refusal(make: () => unknown): string {
  try {
    make();
  } catch (error) {
    assert.ok(error instanceof SettingsError, String(error));
    return error.message;
  }
  throw new Error("not refused");
}

Deno.test("a Scrapy setting name is refused naming Netweir's setting, on the command line and in code", () => {
  assert.equal(
    refusal(() => Settings.fromPairs(["DOWNLOAD_DELAY=2"])),
    "unknown setting DOWNLOAD_DELAY, a Scrapy name; in Netweir it is min_delay",
  );
  assert.equal(
    refusal(() => new Settings({ CLOSESPIDER_ITEMCOUNT: 10 })),
    "unknown setting CLOSESPIDER_ITEMCOUNT, a Scrapy name; in Netweir it is max_items",
  );
  assert.equal(
    refusal(() => Settings.fromPairs(["depth_limit=3"])),
    "unknown setting depth_limit, a Scrapy name; in Netweir it is max_depth (null for no limit, where Scrapy writes 0)",
  );
  assert.equal(
    refusal(() => Settings.fromPairs(["FEEDS=items.jsonl"])),
    "unknown setting FEEDS, a Scrapy name; in Netweir it is -o PATH or -O PATH on the command line",
  );
});

Deno.test("every Scrapy name in the table points at a setting that exists, and none is a Netweir name itself", () => {
  for (const row of SCRAPY_SETTINGS) {
    assert.ok(row.netweir !== undefined || row.note !== undefined, row.scrapy);
    if (row.netweir !== undefined) assert.equal(findSetting(row.netweir)?.cli, row.netweir, row.scrapy);
    assert.equal(findSetting(row.scrapy), undefined, `${row.scrapy} is a Netweir setting`);
    assert.match(refusal(() => Settings.fromPairs([`${row.scrapy}=1`])), /, a Scrapy name; in Netweir it is /);
  }
});

Deno.test("an unknown name that is not Scrapy's still gets the nearest setting as a hint", () => {
  assert.equal(
    refusal(() => Settings.fromPairs(["max_itemz=1"])),
    "unknown setting max_itemz (did you mean max_items?)",
  );
});
