import assert from "node:assert/strict";
import { backoffMs, retry } from "../../src/queue/retry.ts";

/** A sleep that records what it was asked to wait and returns at once. */
function recordingSleep() {
  const waits: number[] = [];
  return { waits, sleep: (ms: number) => (waits.push(ms), Promise.resolve()) };
}

Deno.test("the backoff grows by 100 ms a failure and stops at a second", () => {
  assert.deepEqual([0, 1, 2, 8, 9, 10, 50].map(backoffMs), [100, 200, 300, 900, 1000, 1000, 1000]);
});

Deno.test("retry tries again after each failure, waiting the backoff, until the operation works", async () => {
  const { waits, sleep } = recordingSleep();
  const seen: number[] = [];
  const value = await retry(
    (attempt) => attempt < 3 ? Promise.reject(new Error(`fail ${attempt}`)) : Promise.resolve("done"),
    (error, attempt) => {
      seen.push(attempt);
      assert.equal((error as Error).message, `fail ${attempt}`);
    },
    sleep,
  );
  assert.equal(value, "done");
  assert.deepEqual(seen, [0, 1, 2]);
  assert.deepEqual(waits, [100, 200, 300]);
});

Deno.test("what onFailure throws ends the retries, and a number it returns caps the wait", async () => {
  const { waits, sleep } = recordingSleep();
  let calls = 0;
  await assert.rejects(
    retry(() => (calls++, Promise.reject(new Error("down"))), (_error, attempt) => {
      if (attempt === 2) throw new Error("gave up");
      return attempt === 0 ? 40 : -5;
    }, sleep),
    /gave up/,
  );
  assert.equal(calls, 3);
  assert.deepEqual(waits, [40, 0], "capped at 40 ms, then at nothing (a deadline already passed)");
});

Deno.test("an operation that throws before returning a promise is retried like one that rejects", async () => {
  const { sleep } = recordingSleep();
  let calls = 0;
  const value = await retry(
    (attempt) => {
      calls++;
      if (attempt === 0) throw new Error("sync");
      return Promise.resolve(attempt);
    },
    () => {},
    sleep,
  );
  assert.equal(value, 1);
  assert.equal(calls, 2);
});
