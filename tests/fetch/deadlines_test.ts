/**
 * The downloader's request timeouts under one timer (src/fetch/deadlines.ts), on real timers: what expires, in which
 * order, what a removal prevents, and that no timer is left behind (Deno's test sanitizer fails a test that leaves one).
 */
import assert from "node:assert/strict";
import { Deadlines } from "../../src/fetch/deadlines.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("deadlines expire in the order of their time, and a removed one never does", async () => {
  const deadlines = new Deadlines();
  const expired: string[] = [];
  const started = Date.now();
  const at: Record<string, number> = {};
  const note = (name: string) => () => {
    expired.push(name);
    at[name] = Date.now() - started;
  };
  deadlines.add(120, note("slow"));
  const removed = deadlines.add(40, note("removed"));
  deadlines.add(60, note("quick"));
  // Added last with the earliest time: the one timer is set earlier for it.
  deadlines.add(20, note("earliest"));
  deadlines.remove(removed);
  assert.equal(deadlines.size, 3);
  await sleep(200);
  assert.deepEqual(expired, ["earliest", "quick", "slow"]);
  assert.ok(at.earliest >= 19 && at.quick >= 59 && at.slow >= 119, JSON.stringify(at));
  assert.equal(deadlines.size, 0);
  assert.equal(deadlines.armed, false);
});

Deno.test("removing every deadline stops the timer: nothing fires, nothing is left pending", async () => {
  const deadlines = new Deadlines();
  let fired = 0;
  const all = [
    deadlines.add(30, () => fired++),
    deadlines.add(10_000, () => fired++),
    deadlines.add(50, () => fired++),
  ];
  for (const deadline of all) deadlines.remove(deadline);
  assert.equal(deadlines.size, 0);
  await sleep(80);
  assert.equal(fired, 0);
  // Removing one that is gone already changes nothing.
  deadlines.remove(all[0]);
  assert.equal(deadlines.armed, false);
  // A long one removed at once: its timer goes with it.
  const alone = new Deadlines();
  const long = alone.add(10_000, () => fired++);
  assert.equal(alone.armed, true);
  alone.remove(long);
  assert.equal(alone.armed, false);
});

Deno.test("a deadline that expires can add another, and a deadline past a timer's longest delay still waits", async () => {
  const deadlines = new Deadlines();
  const expired: string[] = [];
  const far = deadlines.add(2 ** 32, () => expired.push("far"));
  deadlines.add(10, () => {
    expired.push("first");
    deadlines.add(10, () => expired.push("second"));
  });
  await sleep(80);
  assert.deepEqual(expired, ["first", "second"]);
  assert.equal(deadlines.size, 1);
  deadlines.remove(far);
});

Deno.test("a timer that fires for a deadline removed meanwhile sets itself for the next one", async () => {
  let now = 1_000;
  const deadlines = new Deadlines(() => now);
  const expired: string[] = [];
  const first = deadlines.add(10, () => expired.push("first"));
  deadlines.add(30, () => expired.push("second"));
  deadlines.remove(first);
  // The timer was set for the first; when it fires, the clock says only the first's time has come: nothing expires.
  now += 10;
  await sleep(25);
  assert.deepEqual(expired, []);
  now += 20;
  await sleep(40);
  assert.deepEqual(expired, ["second"]);
  assert.equal(deadlines.size, 0);
});
