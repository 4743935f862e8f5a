import assert from "node:assert/strict";
import { PriorityQueue } from "../../src/queue/priority_queue.ts";

/** A small seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function drain<T>(queue: PriorityQueue<T>): T[] {
  const out: T[] = [];
  for (let item = queue.shift(); item !== undefined; item = queue.shift()) out.push(item);
  return out;
}

Deno.test("an empty queue has size 0 and gives nothing", () => {
  const queue = new PriorityQueue<string>();
  assert.equal(queue.size, 0);
  assert.equal(queue.shift(), undefined);
  assert.equal(queue.shift(), undefined);
});

Deno.test("higher priorities come out first, and first in first out within a priority", () => {
  const queue = new PriorityQueue<string>();
  queue.push("a0", 0);
  queue.push("b5", 5);
  queue.push("c0", 0);
  queue.push("d-1", -1);
  queue.push("e5", 5);
  queue.push("f10", 10);
  assert.equal(queue.size, 6);
  assert.deepEqual(drain(queue), ["f10", "b5", "e5", "a0", "c0", "d-1"]);
  assert.equal(queue.size, 0);
});

Deno.test("negative and fractional priorities are ordered as numbers, not as text", () => {
  const queue = new PriorityQueue<number>();
  for (const priority of [-10, 2, -2.5, 100, 0.5, 9, -1]) queue.push(priority, priority);
  assert.deepEqual(drain(queue), [100, 9, 2, 0.5, -1, -2.5, -10]);
});

Deno.test("falsy items come out like any other", () => {
  const queue = new PriorityQueue<unknown>();
  queue.push(0, 1);
  queue.push("", 1);
  queue.push(false, 0);
  queue.push(null, 0);
  assert.deepEqual(drain(queue), [0, "", false, null]);
});

Deno.test("a hundred thousand items over many priorities come out in priority then arrival order", () => {
  const next = random(42);
  const queue = new PriorityQueue<{ priority: number; index: number }>();
  const pushed: { priority: number; index: number }[] = [];
  for (let index = 0; index < 100_000; index++) {
    const item = { priority: Math.floor(next() * 50) - 25, index };
    pushed.push(item);
    queue.push(item, item.priority);
  }
  assert.equal(queue.size, 100_000);
  const expected = [...pushed].sort((a, b) => b.priority - a.priority || a.index - b.index);
  assert.deepEqual(drain(queue), expected);
  assert.equal(queue.size, 0);
});

Deno.test("a long run at one priority keeps its order while the queue is drained and refilled", () => {
  const queue = new PriorityQueue<number>();
  const out: number[] = [];
  let pushed = 0;
  for (let round = 0; round < 10; round++) {
    for (let i = 0; i < 5000; i++) queue.push(pushed++, 0);
    for (let i = 0; i < 3000; i++) out.push(queue.shift()!);
  }
  out.push(...drain(queue));
  assert.equal(out.length, pushed);
  assert.deepEqual(out, Array.from({ length: pushed }, (_, i) => i));
});

Deno.test("pushes and shifts interleaved with changing priorities agree with a simple sorted list", () => {
  const next = random(7);
  const queue = new PriorityQueue<number>();
  let model: { priority: number; id: number; order: number }[] = [];
  let id = 0;
  let order = 0;
  for (let step = 0; step < 50_000; step++) {
    const roll = next();
    if (roll < 0.55) {
      const priority = Math.floor(next() * 8) - 4;
      queue.push(id, priority);
      model.push({ priority, id: id++, order: order++ });
    } else if (roll < 0.6) {
      // unshift: goes before everything already waiting at its priority
      const priority = Math.floor(next() * 8) - 4;
      queue.unshift(id, priority);
      model.push({ priority, id: id++, order: -(order++) - 1e9 });
    } else {
      model.sort((a, b) => b.priority - a.priority || a.order - b.order);
      const expected = model.shift();
      assert.equal(queue.shift(), expected?.id, `step ${step}`);
    }
    assert.equal(queue.size, model.length, `size at step ${step}`);
  }
  model = model.sort((a, b) => b.priority - a.priority || a.order - b.order);
  assert.deepEqual(drain(queue), model.map((entry) => entry.id));
});

Deno.test("unshift puts an item at the front of its own priority", () => {
  const queue = new PriorityQueue<string>();
  queue.push("a", 1);
  queue.push("b", 1);
  queue.push("high", 5);
  queue.push("low", 0);
  queue.unshift("back", 1);
  assert.equal(queue.size, 5);
  assert.deepEqual(drain(queue), ["high", "back", "a", "b", "low"]);
});

Deno.test("items unshifted one after another come out last-unshifted first", () => {
  const queue = new PriorityQueue<string>();
  queue.push("waiting", 0);
  queue.unshift("c", 0);
  queue.unshift("b", 0);
  queue.unshift("a", 0);
  assert.deepEqual(drain(queue), ["a", "b", "c", "waiting"]);
});

Deno.test("unshift at a priority nothing else has takes its place by priority", () => {
  const queue = new PriorityQueue<string>();
  queue.push("ten", 10);
  queue.push("zero", 0);
  queue.unshift("five", 5);
  queue.unshift("first", 20);
  queue.unshift("last", -20);
  assert.deepEqual(drain(queue), ["first", "ten", "five", "zero", "last"]);
});

Deno.test("unshift into an empty queue, and into a priority just emptied, works like push", () => {
  const queue = new PriorityQueue<string>();
  queue.unshift("only", 3);
  assert.equal(queue.size, 1);
  assert.equal(queue.shift(), "only");
  queue.push("x", 3);
  assert.equal(queue.shift(), "x");
  queue.unshift("again", 3);
  queue.push("after", 3);
  assert.deepEqual(drain(queue), ["again", "after"]);
  assert.equal(queue.size, 0);
});

Deno.test("unshift into a long level keeps the rest of the level in order", () => {
  const queue = new PriorityQueue<number>();
  for (let i = 0; i < 3000; i++) queue.push(i, 0);
  for (let i = 0; i < 1500; i++) queue.shift();
  queue.unshift(-1, 0);
  const out = drain(queue);
  assert.deepEqual(out, [-1, ...Array.from({ length: 1500 }, (_, i) => 1500 + i)]);
});

Deno.test("two queues share nothing", () => {
  const first = new PriorityQueue<string>();
  const second = new PriorityQueue<string>();
  first.push("a", 1);
  assert.equal(second.size, 0);
  assert.equal(second.shift(), undefined);
  assert.equal(first.shift(), "a");
});

Deno.test("take passes over skipped items, leaving them in their place and order, and takes the rest in order", () => {
  const queue = new PriorityQueue<string>();
  for (const item of ["a1", "a2", "b1", "a3", "b2", "c1"]) queue.push(item, 0);
  queue.push("z9", 9);
  const skipA = (item: string) => item.startsWith("a");
  assert.deepEqual(queue.take(3, skipA, 1000), ["z9", "b1", "b2"]);
  assert.equal(queue.size, 4);
  assert.deepEqual(queue.take(10, () => false, 1000), ["a1", "a2", "a3", "c1"]);
  assert.equal(queue.size, 0);
  assert.deepEqual(queue.take(1, () => false, 1000), []);
});

Deno.test("take looks no further than its window into a priority, and then at the next priority", () => {
  const queue = new PriorityQueue<string>();
  for (let i = 0; i < 50; i++) queue.push(`a${i}`, 1);
  queue.push("b-behind", 1);
  queue.push("low", 0);
  const skipA = (item: string) => item.startsWith("a");
  assert.deepEqual(queue.take(5, skipA, 20), ["low"], "b-behind is past the window");
  assert.deepEqual(queue.take(5, skipA, 60), ["b-behind"]);
  assert.deepEqual(drain(queue), Array.from({ length: 50 }, (_, i) => `a${i}`), "skipped items kept their order");
});

Deno.test("take and shift mixed at random give every item exactly once", () => {
  const next = random(7);
  const queue = new PriorityQueue<number>();
  const pushed: number[] = [];
  const out: number[] = [];
  for (let round = 0; round < 3000; round++) {
    const roll = next();
    if (roll < 0.6) {
      const item = pushed.length;
      pushed.push(item);
      queue.push(item, Math.floor(next() * 3));
    } else if (roll < 0.8) {
      const item = queue.shift();
      if (item !== undefined) out.push(item);
    } else {
      out.push(...queue.take(1 + Math.floor(next() * 5), (item) => item % 3 === 0, 1 + Math.floor(next() * 40)));
    }
  }
  out.push(...drain(queue));
  assert.deepEqual([...out].sort((a, b) => a - b), pushed, "nothing lost, nothing twice");
  assert.equal(queue.size, 0);
});
