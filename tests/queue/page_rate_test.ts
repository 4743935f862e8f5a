import assert from "node:assert/strict";
import { PageRate } from "../../src/queue/page_rate.ts";

Deno.test("the page rate is measured over the last minute, not since the process started", () => {
  const rate = new PageRate();
  assert.equal(rate.sample(0, 0), 0, "one sample: no rate yet");
  // 100 pages a second for the first minute, then 10 a second: beats every 20 s.
  assert.equal(rate.sample(20_000, 2000), 100);
  assert.equal(rate.sample(60_000, 6000), 100);
  assert.equal(rate.sample(80_000, 6200), (6200 - 2000) / 60);
  assert.equal(rate.sample(100_000, 6400), (6400 - 2000) / 80, "from the newest sample at least a minute old");
  assert.equal(rate.sample(120_000, 6600), (6600 - 6000) / 60, "the first minute is out of the window");
});

Deno.test("a total that went down (a restarted count) gives a rate of 0, never a negative one", () => {
  const rate = new PageRate();
  rate.sample(0, 50);
  assert.equal(rate.sample(1000, 10), 0);
});
