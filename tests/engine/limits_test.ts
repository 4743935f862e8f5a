import assert from "node:assert/strict";
import { countedLimitReached, memoryLimitReached } from "../../src/engine/limits.ts";
import { Stats } from "../../src/engine/stats.ts";
import { Settings } from "../../src/settings/settings.ts";

const settings = (init: Record<string, unknown> = {}) => new Settings(init).resolve();

function statsWith(counts: Record<string, number>): Stats {
  const stats = new Stats();
  for (const [name, count] of Object.entries(counts)) stats.inc(name, count);
  return stats;
}

Deno.test("without limits no count is ever too high", () => {
  assert.equal(countedLimitReached(settings(), statsWith({ items: 1e9, pages: 1e9, errors: 1e9 })), undefined);
});

Deno.test("max_items is reached when the items counted get to it, not before", () => {
  const values = settings({ maxItems: 3 });
  assert.equal(countedLimitReached(values, statsWith({ items: 2 })), undefined);
  assert.equal(countedLimitReached(values, statsWith({ items: 3 })), "max_items");
  assert.equal(countedLimitReached(values, statsWith({ items: 4 })), "max_items");
});

Deno.test("max_pages is reached when the pages counted get to it", () => {
  const values = settings({ maxPages: 10 });
  assert.equal(countedLimitReached(values, statsWith({ pages: 9, items: 100 })), undefined);
  assert.equal(countedLimitReached(values, statsWith({ pages: 10 })), "max_pages");
});

Deno.test("max_errors is reached when the errors counted get to it", () => {
  const values = settings({ maxErrors: 1 });
  assert.equal(countedLimitReached(values, statsWith({ errors: 0, pages: 5 })), undefined);
  assert.equal(countedLimitReached(values, statsWith({ errors: 1 })), "max_errors");
});

Deno.test("other counters never reach a limit", () => {
  const values = settings({ maxItems: 1, maxPages: 1, maxErrors: 1 });
  assert.equal(countedLimitReached(values, statsWith({ requests: 50, items_dropped: 50, retries: 50 })), undefined);
});

Deno.test("when several limits are reached at once the first named is items, then pages, then errors", () => {
  const values = settings({ maxItems: 1, maxPages: 1, maxErrors: 1 });
  assert.equal(countedLimitReached(values, statsWith({ items: 1, pages: 1, errors: 1 })), "max_items");
  assert.equal(countedLimitReached(values, statsWith({ pages: 1, errors: 1 })), "max_pages");
});

Deno.test("memory is over max_memory only past that many MiB", () => {
  const values = settings({ maxMemory: 100 });
  const mib = 1024 * 1024;
  assert.equal(memoryLimitReached(values, 99 * mib), false);
  assert.equal(memoryLimitReached(values, 100 * mib), false);
  assert.equal(memoryLimitReached(values, 100 * mib + 1), true);
});

Deno.test("without max_memory no amount of memory is too much", () => {
  assert.equal(memoryLimitReached(settings(), Number.MAX_SAFE_INTEGER), false);
});
