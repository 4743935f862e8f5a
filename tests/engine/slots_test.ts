import assert from "node:assert/strict";
import { REMEMBERED_FLOORS, Slots, type SlotSettings } from "../../src/engine/slots.ts";

const T0 = 1_700_000_000_000; // an epoch ms to count from; nothing here reads the clock

function slots(overrides: Partial<SlotSettings> = {}): Slots {
  return new Slots({
    perDomain: 8,
    minDelay: 0,
    maxDelay: 60,
    autothrottle: true,
    autothrottleTarget: 4,
    ...overrides,
  });
}

/** Runs `count` requests to a host, one after another, each answered with the outcome given. */
function answer(
  s: Slots,
  host: string,
  count: number,
  outcome: { latency: number; status: number; retryAfter?: number },
  now = T0,
): void {
  for (let i = 0; i < count; i++) {
    s.start(host, now);
    s.finish(host, outcome, now);
  }
}

Deno.test("a host never seen before is ready at once", () => {
  const s = slots({ minDelay: 3 });
  assert.ok(s.readyAt("a.test") <= T0);
  assert.equal(s.active("a.test"), 0);
  assert.equal(s.delay("a.test"), 3);
});

Deno.test("no more than per_domain requests to one host are in flight: the host is not ready while all are busy", () => {
  const s = slots({ perDomain: 2 });
  s.start("a.test", T0);
  assert.notEqual(s.readyAt("a.test"), Infinity);
  s.start("a.test", T0);
  assert.equal(s.active("a.test"), 2);
  assert.equal(s.readyAt("a.test"), Infinity);
  assert.ok(s.readyAt("b.test") <= T0, "another host has slots of its own");
  s.finish("a.test", { latency: 0.1, status: 200 }, T0 + 100);
  assert.equal(s.active("a.test"), 1);
  assert.ok(Number.isFinite(s.readyAt("a.test")));
});

Deno.test("finishing more requests than were started never leaves a negative count", () => {
  const s = slots({ perDomain: 1 });
  s.finish("a.test", { latency: 0.1, status: 200 }, T0);
  assert.equal(s.active("a.test"), 0);
  s.start("a.test", T0);
  assert.equal(s.readyAt("a.test"), Infinity);
});

Deno.test("two starts to one host are at least the delay apart", () => {
  const s = slots({ minDelay: 2, autothrottle: false });
  s.start("a.test", T0);
  assert.equal(s.readyAt("a.test"), T0 + 2000);
  s.start("a.test", T0 + 2000);
  assert.equal(s.readyAt("a.test"), T0 + 4000);
  assert.ok(s.readyAt("b.test") <= T0, "the delay is per host");
});

Deno.test("with autothrottle off the delay stays at min_delay whatever the answers", () => {
  const s = slots({ minDelay: 0.5, autothrottle: false });
  answer(s, "a.test", 5, { latency: 30, status: 200 });
  assert.equal(s.delay("a.test"), 0.5);
  answer(s, "a.test", 5, { latency: 1, status: 429 });
  assert.equal(s.delay("a.test"), 0.5);
});

Deno.test("autothrottle moves the delay towards latency divided by the target concurrency", () => {
  const s = slots({ autothrottleTarget: 4 });
  answer(s, "a.test", 1, { latency: 8, status: 200 });
  const afterOne = s.delay("a.test");
  assert.ok(afterOne > 0 && afterOne < 2, `one slow answer moves part of the way: ${afterOne}`);
  answer(s, "a.test", 30, { latency: 8, status: 200 });
  assert.ok(Math.abs(s.delay("a.test") - 2) < 0.001, `settles at 8 / 4 = 2, got ${s.delay("a.test")}`);
});

Deno.test("autothrottle lowers the delay again when the host gets fast", () => {
  const s = slots({ autothrottleTarget: 2 });
  answer(s, "a.test", 30, { latency: 10, status: 200 });
  const slow = s.delay("a.test");
  assert.ok(slow > 4.9);
  answer(s, "a.test", 1, { latency: 0.2, status: 200 });
  const faster = s.delay("a.test");
  assert.ok(faster < slow);
  answer(s, "a.test", 30, { latency: 0.2, status: 200 });
  assert.ok(Math.abs(s.delay("a.test") - 0.1) < 0.001, `settles at 0.2 / 2 = 0.1, got ${s.delay("a.test")}`);
});

Deno.test("hosts are throttled each on their own latency", () => {
  const s = slots();
  answer(s, "slow.test", 20, { latency: 20, status: 200 });
  answer(s, "fast.test", 20, { latency: 0.04, status: 200 });
  assert.ok(s.delay("slow.test") > 4.9);
  assert.ok(s.delay("fast.test") < 0.02);
});

Deno.test("a 429 or a 503 at least doubles the delay, and backs off to a second from no delay", () => {
  for (const status of [429, 503]) {
    const s = slots();
    answer(s, "a.test", 1, { latency: 0.01, status });
    assert.equal(s.delay("a.test"), 1, `first ${status}`);
    answer(s, "a.test", 1, { latency: 0.01, status });
    assert.equal(s.delay("a.test"), 2, `second ${status}`);
    answer(s, "a.test", 1, { latency: 0.01, status });
    assert.equal(s.delay("a.test"), 4, `third ${status}`);
  }
});

Deno.test("a 429 after a slow answer backs off from the delay reached, not from zero", () => {
  const s = slots();
  answer(s, "a.test", 30, { latency: 12, status: 200 });
  const before = s.delay("a.test");
  answer(s, "a.test", 1, { latency: 0.01, status: 429 });
  assert.ok(Math.abs(s.delay("a.test") - before * 2) < 0.001);
});

Deno.test("backing off never goes above max_delay", () => {
  const s = slots({ maxDelay: 5 });
  answer(s, "a.test", 10, { latency: 0.01, status: 503 });
  assert.equal(s.delay("a.test"), 5);
  answer(s, "a.test", 10, { latency: 500, status: 200 });
  assert.equal(s.delay("a.test"), 5);
});

Deno.test("the delay never goes below min_delay however fast the host answers", () => {
  const s = slots({ minDelay: 0.75 });
  answer(s, "a.test", 30, { latency: 0.001, status: 200 });
  assert.equal(s.delay("a.test"), 0.75);
});

Deno.test("errors and answers other than 200 never speed the host up", () => {
  for (const status of [0, 404, 500, 301]) {
    const s = slots();
    answer(s, "a.test", 30, { latency: 8, status: 200 });
    const before = s.delay("a.test");
    answer(s, "a.test", 5, { latency: 0.001, status });
    assert.ok(s.delay("a.test") >= before, `status ${status}: ${s.delay("a.test")} < ${before}`);
  }
});

Deno.test("a failure without a latency never speeds the host up", () => {
  const s = slots();
  answer(s, "a.test", 30, { latency: 8, status: 200 });
  const before = s.delay("a.test");
  answer(s, "a.test", 3, { latency: 0, status: 200 });
  assert.ok(s.delay("a.test") >= before);
});

Deno.test("a slow error may still slow the host down", () => {
  const s = slots();
  answer(s, "a.test", 1, { latency: 40, status: 0 });
  assert.ok(s.delay("a.test") > 0);
});

Deno.test("Retry-After holds the host until that many seconds after the answer", () => {
  const s = slots();
  s.start("a.test", T0);
  s.finish("a.test", { latency: 0.1, status: 429, retryAfter: 30 }, T0 + 100);
  assert.equal(s.readyAt("a.test"), T0 + 100 + 30_000);
  assert.ok(s.readyAt("b.test") <= T0, "other hosts are not held");
});

Deno.test("Retry-After is honoured with autothrottle off too", () => {
  const s = slots({ autothrottle: false });
  s.start("a.test", T0);
  s.finish("a.test", { latency: 0.1, status: 503, retryAfter: 7 }, T0);
  assert.equal(s.readyAt("a.test"), T0 + 7000);
});

Deno.test("a Retry-After longer than max_delay waits max_delay", () => {
  const s = slots({ maxDelay: 10 });
  s.start("a.test", T0);
  s.finish("a.test", { latency: 0.1, status: 429, retryAfter: 3600 }, T0);
  assert.equal(s.readyAt("a.test"), T0 + 10_000);
});

Deno.test("a short Retry-After never brings the next start forward", () => {
  const s = slots({ minDelay: 20, maxDelay: 60, autothrottle: false });
  s.start("a.test", T0);
  s.finish("a.test", { latency: 0.1, status: 503, retryAfter: 1 }, T0);
  assert.equal(s.readyAt("a.test"), T0 + 20_000);
});

Deno.test("a Retry-After of zero changes nothing", () => {
  const s = slots({ autothrottle: false });
  s.start("a.test", T0);
  s.finish("a.test", { latency: 0.1, status: 200, retryAfter: 0 }, T0);
  // Ready at once (with no wait left, the slot itself is gone, and readyAt says "any time").
  assert.ok(s.readyAt("a.test") <= T0);
});

Deno.test("a backed-off delay applies to the very next start after the 429", () => {
  const s = slots();
  s.start("a.test", T0);
  s.finish("a.test", { latency: 0.1, status: 429 }, T0 + 100);
  assert.equal(s.delay("a.test"), 1);
  assert.equal(s.readyAt("a.test"), T0 + 1000, "the next request waits the new delay from the last start");
});

Deno.test("a Crawl-delay is a floor on the delay however fast the host answers", () => {
  const s = slots();
  s.setFloor("a.test", 5);
  assert.equal(s.delay("a.test"), 5);
  answer(s, "a.test", 30, { latency: 0.01, status: 200 });
  assert.equal(s.delay("a.test"), 5);
  s.start("a.test", T0 + 1);
  assert.equal(s.readyAt("a.test"), T0 + 1 + 5000);
  assert.equal(s.delay("b.test"), 0, "the floor is for its host only");
});

Deno.test("a Crawl-delay is a floor with autothrottle off too", () => {
  const s = slots({ autothrottle: false, minDelay: 1 });
  s.setFloor("a.test", 3);
  answer(s, "a.test", 3, { latency: 0.01, status: 200 });
  assert.equal(s.delay("a.test"), 3);
});

Deno.test("a Crawl-delay below min_delay leaves min_delay in charge", () => {
  const s = slots({ minDelay: 2 });
  s.setFloor("a.test", 0.5);
  answer(s, "a.test", 30, { latency: 0.01, status: 200 });
  assert.equal(s.delay("a.test"), 2);
});

Deno.test("a Crawl-delay above max_delay is capped at max_delay", () => {
  const s = slots({ maxDelay: 10 });
  s.setFloor("a.test", 3600);
  assert.equal(s.delay("a.test"), 10);
  answer(s, "a.test", 5, { latency: 0.01, status: 200 });
  assert.equal(s.delay("a.test"), 10);
});

Deno.test("a Crawl-delay learnt after a request started applies to the next start", () => {
  const s = slots();
  s.start("a.test", T0);
  s.setFloor("a.test", 4);
  assert.equal(s.readyAt("a.test"), T0 + 4000);
});

Deno.test("two Slots share nothing", () => {
  const first = slots({ perDomain: 1 });
  const second = slots({ perDomain: 1 });
  first.start("a.test", T0);
  first.setFloor("a.test", 9);
  assert.equal(first.readyAt("a.test"), Infinity);
  assert.ok(second.readyAt("a.test") <= T0);
  assert.equal(second.delay("a.test"), 0);
});

/** Slots on a clock the test moves. */
function clocked(overrides: Partial<SlotSettings> = {}): { s: Slots; clock: { now: number } } {
  const clock = { now: T0 };
  const s = new Slots({
    perDomain: 2,
    minDelay: 0,
    maxDelay: 60,
    autothrottle: false,
    autothrottleTarget: 4,
    ...overrides,
  }, () => clock.now);
  return { s, clock };
}

Deno.test("an idle host's slot is dropped once its wait is over, and not before", () => {
  const { s, clock } = clocked({ minDelay: 2 });
  s.start("a.test");
  s.finish("a.test", { latency: 0.1, status: 200 });
  clock.now += 1500;
  s.start("b.test");
  assert.equal(s.size, 2, "a.test's 2 s are not over: its slot stays");
  assert.equal(s.readyAt("a.test"), T0 + 2000);
  clock.now += 1000;
  s.finish("b.test", { latency: 0.1, status: 200 });
  assert.equal(s.size, 1, "a.test is dropped; b.test waits its 2 s");
  assert.ok(s.readyAt("a.test") <= clock.now);
  assert.equal(s.delay("a.test"), 2);
});

Deno.test("a host in flight or under a Retry-After keeps its slot", () => {
  const { s, clock } = clocked();
  s.start("busy.test");
  s.start("later.test");
  s.finish("later.test", { latency: 0.1, status: 503, retryAfter: 30 });
  clock.now += 10_000;
  s.start("c.test");
  clock.now += 1000; // idle slots are looked for once a second
  s.finish("c.test", { latency: 0.1, status: 200 });
  assert.equal(s.active("busy.test"), 1);
  assert.equal(s.readyAt("later.test"), T0 + 30_000, "the Retry-After still holds");
  assert.equal(s.size, 2, "c.test is gone, the other two stay");
});

Deno.test("a host that comes back after its slot was dropped is still held to its Crawl-delay", () => {
  const { s, clock } = clocked();
  s.setFloor("slow.test", 5);
  s.start("slow.test");
  s.finish("slow.test", { latency: 0.1, status: 200 });
  clock.now += 6000;
  s.start("other.test");
  clock.now += 1000; // idle slots are looked for once a second
  s.finish("other.test", { latency: 0.1, status: 200 });
  assert.equal(s.size, 0, "both slots dropped");
  assert.equal(s.crawlDelay("slow.test"), 5, "the Crawl-delay is kept (the shared queue asks for it)");
  assert.equal(s.delay("slow.test"), 5);
  // Back: the first request starts at once, the second only 5 s after it, as before the slot was dropped.
  assert.ok(s.readyAt("slow.test") <= clock.now);
  s.start("slow.test");
  assert.equal(s.readyAt("slow.test"), clock.now + 5000);
});

Deno.test("autothrottle's learned delay outlives the slot: a host back later goes on from it", () => {
  const { s, clock } = clocked({ autothrottle: true, autothrottleTarget: 1 });
  s.start("a.test");
  s.finish("a.test", { latency: 0.4, status: 200 });
  const learned = s.delay("a.test");
  assert.ok(learned > 0);
  clock.now += 5000;
  s.start("b.test");
  s.finish("b.test", { latency: 0.4, status: 200 });
  assert.equal(s.size, 1, "a.test's slot is gone");
  assert.equal(s.delay("a.test"), learned);
  s.start("a.test");
  assert.equal(s.readyAt("a.test"), clock.now + learned * 1000);
  s.finish("a.test", { latency: 0.4, status: 200 });
  const { s: fresh } = clocked({ autothrottle: true, autothrottleTarget: 1 });
  answer(fresh, "a.test", 2, { latency: 0.4, status: 200 }, T0);
  assert.equal(s.delay("a.test"), fresh.delay("a.test"), "the same delay as a slot never dropped");
});

Deno.test("slots stay bounded over a hundred thousand hosts crawled one after another", () => {
  const { s, clock } = clocked({ autothrottle: true });
  for (let i = 0; i < 100_000; i++) {
    const host = `h${i}.test`;
    s.start(host);
    clock.now += 1;
    s.finish(host, { latency: 0.001, status: 200 });
  }
  assert.ok(s.size <= 1100, `${s.size} slots kept`);
});

Deno.test("a host's slot goes as its last request finishes when there is no wait left", () => {
  const { s, clock } = clocked({ perDomain: 2 });
  s.start("a.test");
  s.start("a.test");
  clock.now += 100;
  s.finish("a.test", { latency: 0.1, status: 200 });
  assert.equal(s.size, 1, "a request still in flight keeps it");
  s.finish("a.test", { latency: 0.1, status: 200 });
  assert.equal(s.size, 0, "gone at once, not at the next sweep");
  // With autothrottle the delay learned from a 2 s answer is 2 s: over when the answer came, so the slot goes too,
  // and the delay is remembered.
  const { s: throttled, clock: later } = clocked({ autothrottle: true, autothrottleTarget: 1 });
  throttled.start("b.test");
  later.now += 2000;
  throttled.finish("b.test", { latency: 2, status: 200 });
  assert.equal(throttled.size, 0);
  assert.equal(throttled.delay("b.test"), 1, "(0 + 2) / 2, kept after the slot");
});

Deno.test("Crawl-delays are kept for the most recently seen REMEMBERED_FLOORS hosts", () => {
  const { s } = clocked();
  s.setFloor("first.test", 3);
  for (let i = 0; i < REMEMBERED_FLOORS - 1; i++) s.setFloor(`h${i}.test`, 1);
  s.setFloor("first.test", 3); // seen again: the most recent now
  s.setFloor("one-more.test", 1);
  assert.equal(s.sizes.crawlDelays, REMEMBERED_FLOORS);
  assert.equal(s.crawlDelay("first.test"), 3, "refreshed, so kept");
  assert.equal(s.crawlDelay("h0.test"), 0, "the least recently set is forgotten");
  assert.equal(s.crawlDelay("h1.test"), 1);
});
