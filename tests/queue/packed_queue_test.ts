import assert from "node:assert/strict";
import { FingerprintSet } from "../../src/queue/fingerprint_set.ts";
import { PackedQueue } from "../../src/queue/packed_queue.ts";
import { Request, type RequestInit } from "../../src/spider/request.ts";
import { seededRandom } from "../helpers/seeded_random.ts";

/**
 * The straightforward queue the packed one must agree with: arrays of request objects by priority, a take looking
 * at the first `window` of each priority and leaving skipped requests in their places (the old memory store).
 */
class ReferenceQueue {
  readonly levels = new Map<number, Request[]>();
  push(request: Request): void {
    const level = this.levels.get(request.priority) ?? [];
    level.push(request);
    this.levels.set(request.priority, level);
  }
  unshift(request: Request): void {
    const level = this.levels.get(request.priority) ?? [];
    level.unshift(request);
    this.levels.set(request.priority, level);
  }
  take(max: number, skipHost: ((host: string) => boolean) | undefined, window: number): Request[] {
    const taken: Request[] = [];
    for (const priority of [...this.levels.keys()].sort((a, b) => b - a)) {
      const level = this.levels.get(priority)!;
      const kept: Request[] = [];
      let looked = 0;
      let i = 0;
      for (; i < level.length && looked < window && taken.length < max; i++, looked++) {
        if (skipHost?.(level[i].host)) kept.push(level[i]);
        else taken.push(level[i]);
      }
      this.levels.set(priority, [...kept, ...level.slice(i)]);
      if (this.levels.get(priority)!.length === 0) this.levels.delete(priority);
    }
    return taken;
  }
  get size(): number {
    return [...this.levels.values()].reduce((sum, level) => sum + level.length, 0);
  }
}

const spiderMethod = function parseItem() {};
const otherMethod = function parseList() {};

function randomRequest(next: () => number, n: number): Request {
  const pick = <T>(values: T[]): T => values[Math.floor(next() * values.length)];
  const init: RequestInit = {
    url: `https://${pick(["a", "b", "c", "d", "e", "f"])}.test/${pick(["", "p/", "q?x=1&y=%20"])}${n}`,
    priority: pick([0, 0, 0, -1, 2, 5.5]),
    callback: pick([undefined, undefined, "parse", spiderMethod, otherMethod]),
    errback: pick([undefined, undefined, "failed", otherMethod]),
    depth: pick([0, 0, 1, 2, 70000]),
    rule: pick([undefined, undefined, 0, 3]),
    dontFilter: next() < 0.1,
  };
  // Some requests a record cannot stand for: they go through as objects.
  const odd = next();
  if (odd < 0.05) init.meta = { n };
  else if (odd < 0.08) init.headers = { "x-n": String(n) };
  else if (odd < 0.1) init.method = "POST";
  else if (odd < 0.12) init.timeout = 3;
  return new Request(init);
}

/** What a taken request says, field by field. */
function fields(request: Request): unknown {
  return { ...request.toInit(), host: request.host };
}

Deno.test("the packed queue gives what a plain queue of objects gives, on random pushes, takes and give-backs", () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    const next = seededRandom(seed);
    const packed = new PackedQueue();
    const reference = new ReferenceQueue();
    let n = 0;
    for (let step = 0; step < 3000; step++) {
      const what = next();
      if (what < 0.5) {
        const request = randomRequest(next, n++);
        packed.push(request);
        reference.push(request);
      } else if (what < 0.55) {
        const request = randomRequest(next, n++);
        packed.unshift(request);
        reference.unshift(request);
      } else {
        const max = 1 + Math.floor(next() * 20);
        const window = 1 + Math.floor(next() * 30);
        const busy = new Set(["a", "b", "c", "d", "e", "f"].filter(() => next() < 0.4).map((h) => `${h}.test`));
        const skip = next() < 0.7 ? (host: string) => busy.has(host) : undefined;
        const got = packed.take(max, skip, window);
        const want = reference.take(max, skip, window);
        assert.deepEqual(got.map(fields), want.map(fields), `seed ${seed}, step ${step}`);
        // A given-back request goes to the front of its priority in both.
        if (got.length > 0 && next() < 0.2) {
          packed.unshift(got[0]);
          reference.unshift(want[0]);
        }
      }
      assert.equal(packed.size, reference.size);
    }
    const rest = packed.take(Infinity, undefined, Infinity);
    assert.deepEqual(rest.map(fields), reference.take(Infinity, undefined, Infinity).map(fields));
    assert.equal(packed.hosts, 0, "no host is kept once nothing waits for it");
    assert.equal(packed.objects, 0);
  }
});

Deno.test("plain requests are packed, and a request a record cannot stand for comes back as the same object", () => {
  const queue = new PackedQueue();
  queue.push(new Request({ url: "https://a.test/1", callback: spiderMethod, depth: 3 }));
  queue.push(new Request("https://a.test/2"));
  assert.equal(queue.objects, 0, "a start URL and a followed link are records");
  const withMeta = new Request({ url: "https://a.test/3", meta: { page: 3 } });
  queue.push(withMeta);
  assert.equal(queue.objects, 1);
  const [first, second, third] = queue.take(3, undefined, 3);
  assert.equal(first.callback, spiderMethod);
  assert.equal(first.depth, 3);
  assert.equal(second.url, "https://a.test/2");
  assert.equal(third, withMeta);
});

Deno.test("a spider's 256th distinct callback is kept on an object, and comes back the same", () => {
  const queue = new PackedQueue();
  const callbacks = Array.from({ length: 300 }, () => () => {});
  callbacks.forEach((callback, i) => queue.push(new Request({ url: `https://a.test/${i}`, callback })));
  assert.equal(queue.objects, 300 - 255);
  const taken = queue.take(Infinity, undefined, Infinity);
  assert.deepEqual(taken.map((request) => request.callback), callbacks);
});

Deno.test("the fingerprint set agrees with a Set of strings, including keys that share their first word", () => {
  const next = seededRandom(7);
  const set = new FingerprintSet();
  const reference = new Set<string>();
  const hex = () => Array.from({ length: 40 }, () => "0123456789abcdef"[Math.floor(next() * 16)]).join("");
  const keys: string[] = [];
  for (let i = 0; i < 20000; i++) {
    let key = hex();
    // A fifth share the first 8 digits with an earlier key (one probe sequence), a few are all zeros.
    if (i > 0 && next() < 0.2) key = keys[Math.floor(next() * keys.length)].slice(0, 8) + key.slice(8);
    if (next() < 0.001) key = "0".repeat(40);
    if (next() < 0.3 && keys.length > 0) key = keys[Math.floor(next() * keys.length)];
    keys.push(key);
    const fresh = !reference.has(key.slice(0, 32));
    reference.add(key.slice(0, 32));
    assert.equal(set.add(key), fresh, key);
    assert.equal(set.size, reference.size);
  }
  for (let i = 0; i < 2000; i++) assert.equal(set.has(hex()), false);
  for (const key of keys) assert.equal(set.has(key), true);
});
