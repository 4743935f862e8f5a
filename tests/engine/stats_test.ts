import assert from "node:assert/strict";
import { Stats } from "../../src/engine/stats.ts";

Deno.test("a fresh record has the start time, no finish, zero counters and empty tallies", () => {
  const before = Date.now();
  const record = new Stats().toJSON();
  assert.deepEqual(Object.keys(record), [
    "start_time",
    "finish_time",
    "finish_reason",
    "elapsed_seconds",
    "requests",
    "pages",
    "items",
    "items_dropped",
    "errors",
    "retries",
    "bytes",
    "status",
    "dropped",
  ]);
  const start = Date.parse(record.start_time as string);
  assert.ok(start >= before - 1000 && start <= Date.now(), `start_time ${record.start_time}`);
  assert.match(record.start_time as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(record.finish_time, null);
  assert.equal(record.finish_reason, null);
  assert.equal(typeof record.elapsed_seconds, "number");
  for (const name of ["requests", "pages", "items", "items_dropped", "errors", "retries", "bytes"]) {
    assert.equal(record[name], 0, name);
  }
  assert.deepEqual(record.status, {});
  assert.deepEqual(record.dropped, {});
});

Deno.test("counters add up by one or by the amount given, and unknown counters read as zero", () => {
  const stats = new Stats();
  stats.inc("pages");
  stats.inc("pages");
  stats.inc("bytes", 1500);
  stats.inc("bytes", 500);
  assert.equal(stats.get("pages"), 2);
  assert.equal(stats.get("bytes"), 2000);
  assert.equal(stats.get("never_counted"), 0);
  const record = stats.toJSON();
  assert.equal(record.pages, 2);
  assert.equal(record.bytes, 2000);
});

Deno.test("counters of other names are in the record too, in name order", () => {
  const stats = new Stats();
  stats.inc("zeta");
  stats.inc("alpha", 3);
  stats.inc("items");
  const record = stats.toJSON();
  assert.equal(record.alpha, 3);
  assert.equal(record.zeta, 1);
  assert.equal(record.items, 1);
  const keys = Object.keys(record);
  assert.ok(keys.indexOf("alpha") < keys.indexOf("zeta"));
  assert.ok(keys.indexOf("bytes") < keys.indexOf("alpha"), "the fixed counters come first");
});

Deno.test("responses are tallied per status, in status order, keyed by the status as text", () => {
  const stats = new Stats();
  for (const code of [404, 200, 200, 503, 200, 301]) stats.status(code);
  const record = stats.toJSON();
  assert.deepEqual(record.status, { "200": 3, "301": 1, "404": 1, "503": 1 });
  assert.deepEqual(Object.keys(record.status as object), ["200", "301", "404", "503"]);
});

Deno.test("dropped requests are tallied per reason, in reason order", () => {
  const stats = new Stats();
  for (const reason of ["offsite", "robots", "offsite", "depth", "trap", "offsite"]) stats.dropped(reason);
  assert.equal(stats.droppedCount("offsite"), 3);
  assert.equal(stats.droppedCount("depth"), 1);
  assert.equal(stats.droppedCount("middleware"), 0);
  const record = stats.toJSON();
  assert.deepEqual(record.dropped, { depth: 1, offsite: 3, robots: 1, trap: 1 });
  assert.deepEqual(Object.keys(record.dropped as object), ["depth", "offsite", "robots", "trap"]);
});

Deno.test("dropped requests are not counters, and counters are not dropped requests", () => {
  const stats = new Stats();
  stats.dropped("offsite");
  stats.inc("robots");
  assert.equal(stats.get("offsite"), 0);
  assert.equal(stats.droppedCount("robots"), 0);
  const record = stats.toJSON();
  assert.equal(record.offsite, undefined);
  assert.deepEqual(record.dropped, { offsite: 1 });
});

Deno.test("the frontier's counters are merged into the record", () => {
  const stats = new Stats();
  stats.inc("pages", 4);
  const record = stats.toJSON({ pushed: 10, leased: 7 });
  assert.equal(record.pushed, 10);
  assert.equal(record.leased, 7);
  assert.equal(record.pages, 4);
});

Deno.test("a finished crawl records its finish time, its reason and the seconds it took", () => {
  const stats = new Stats();
  stats.finishTime = new Date(stats.startTime.getTime() + 2500);
  stats.finishReason = "max_items";
  const record = stats.toJSON();
  assert.equal(record.finish_time, stats.finishTime.toISOString());
  assert.equal(record.finish_reason, "max_items");
  assert.equal(record.elapsed_seconds, 2.5);
  assert.equal(stats.elapsed(stats.startTime.getTime() + 99_000), 2.5, "a finished crawl's time stops");
});

Deno.test("elapsed counts seconds from the start until the time given while running", () => {
  const stats = new Stats();
  assert.equal(stats.elapsed(stats.startTime.getTime() + 1234), 1.234);
  assert.equal(stats.elapsed(stats.startTime.getTime()), 0);
});

Deno.test("the record survives JSON.stringify, alone or inside another object", () => {
  const stats = new Stats();
  stats.inc("pages", 2);
  stats.status(200);
  stats.dropped("offsite");
  const alone = JSON.parse(JSON.stringify(stats));
  assert.equal(alone.pages, 2);
  assert.deepEqual(alone.status, { "200": 1 });
  const nested = JSON.parse(JSON.stringify({ stats }));
  assert.deepEqual(Object.keys(nested.stats), Object.keys(alone));
  assert.equal(nested.stats.pages, 2);
});

Deno.test("two Stats share nothing", () => {
  const first = new Stats();
  const second = new Stats();
  first.inc("pages");
  first.status(200);
  first.dropped("depth");
  assert.equal(second.get("pages"), 0);
  assert.deepEqual(second.toJSON().status, {});
  assert.deepEqual(second.toJSON().dropped, {});
});
