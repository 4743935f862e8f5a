import assert from "node:assert/strict";
import type { Lease } from "../../src/queue/frontier.ts";
import { MemoryFrontier } from "../../src/queue/memory.ts";
import { Request, type RequestInit } from "../../src/spider/request.ts";

const req = (url: string, options: Omit<RequestInit, "url"> = {}) => new Request({ url, ...options });
const urls = (leases: Lease[]) => leases.map((lease) => lease.request.url);

Deno.test("push returns how many requests went in and leaves duplicates out", async () => {
  const frontier = new MemoryFrontier();
  assert.equal(await frontier.push([req("https://a.test/1"), req("https://a.test/2")]), 2);
  assert.equal(await frontier.push([req("https://a.test/1"), req("https://a.test/3")]), 1);
  assert.equal(await frontier.push([req("https://a.test/4"), req("https://a.test/4")]), 1, "duplicates in one batch");
  assert.deepEqual(urls(await frontier.lease(10)), [
    "https://a.test/1",
    "https://a.test/2",
    "https://a.test/3",
    "https://a.test/4",
  ]);
});

Deno.test("duplicates are found by fingerprint: the same page written differently is left out", async () => {
  const frontier = new MemoryFrontier();
  await frontier.push([req("https://a.test/s?a=1&b=2")]);
  assert.equal(await frontier.push([req("HTTPS://A.TEST:443/s?b=2&a=1#frag")]), 0);
  assert.equal(await frontier.push([req("https://a.test/s?a=1&b=2", { method: "POST" })]), 1, "another method");
  assert.equal(await frontier.push([req("https://a.test/s?a=1&b=2", { method: "POST", body: "x" })]), 1, "a body");
});

Deno.test("a request seen once stays seen after it was leased and finished", async () => {
  const frontier = new MemoryFrontier();
  await frontier.push([req("https://a.test/")]);
  const [lease] = await frontier.lease(1);
  await frontier.finish(lease, []);
  assert.equal(await frontier.push([req("https://a.test/")]), 0);
  assert.deepEqual(await frontier.lease(5), []);
});

Deno.test("dontFilter requests go in however often they are seen", async () => {
  const frontier = new MemoryFrontier();
  await frontier.push([req("https://a.test/")]);
  assert.equal(await frontier.push([req("https://a.test/", { dontFilter: true })]), 1);
  assert.equal(await frontier.push([req("https://a.test/", { dontFilter: true })]), 1);
  assert.equal((await frontier.lease(10)).length, 3);
});

Deno.test("higher priority is leased first, and first in first out within a priority", async () => {
  const frontier = new MemoryFrontier();
  await frontier.push([
    req("https://a.test/low-1", { priority: -1 }),
    req("https://a.test/mid-1"),
    req("https://a.test/high-1", { priority: 5 }),
    req("https://a.test/mid-2"),
    req("https://a.test/high-2", { priority: 5 }),
  ]);
  await frontier.push([req("https://a.test/mid-3"), req("https://a.test/top", { priority: 9 })]);
  assert.deepEqual(urls(await frontier.lease(100)), [
    "https://a.test/top",
    "https://a.test/high-1",
    "https://a.test/high-2",
    "https://a.test/mid-1",
    "https://a.test/mid-2",
    "https://a.test/mid-3",
    "https://a.test/low-1",
  ]);
});

Deno.test("lease takes at most the number asked for, and nothing from an empty queue", async () => {
  const frontier = new MemoryFrontier();
  assert.deepEqual(await frontier.lease(3), []);
  await frontier.push([1, 2, 3, 4, 5].map((n) => req(`https://a.test/${n}`)));
  assert.equal((await frontier.lease(2)).length, 2);
  assert.deepEqual(await frontier.lease(0), []);
  assert.equal((await frontier.lease(10)).length, 3);
  assert.deepEqual(await frontier.lease(10), []);
});

Deno.test("every lease has an id of its own, and carries the request pushed", async () => {
  const frontier = new MemoryFrontier();
  const pushed = [1, 2, 3].map((n) => req(`https://a.test/${n}`, { meta: { n } }));
  await frontier.push(pushed);
  const leases = await frontier.lease(3);
  assert.equal(new Set(leases.map((lease) => lease.id)).size, 3);
  assert.deepEqual(leases.map((lease) => lease.request.meta.n), [1, 2, 3]);
});

Deno.test("finish queues the requests the page yielded, without duplicates, and releases the page", async () => {
  const frontier = new MemoryFrontier();
  await frontier.push([req("https://a.test/"), req("https://a.test/known")]);
  const [page] = await frontier.lease(1);
  await frontier.finish(page, [
    req("https://a.test/new"),
    req("https://a.test/known"),
    req("https://a.test/"),
    req("https://a.test/new#again"),
  ]);
  const status = await frontier.status();
  assert.equal(status.held, 0);
  assert.equal(status.waiting, 2);
  assert.deepEqual(urls(await frontier.lease(10)), ["https://a.test/known", "https://a.test/new"]);
});

Deno.test("ended is true only when nothing is waiting and nothing is held", async () => {
  const frontier = new MemoryFrontier();
  assert.equal(await frontier.ended(), true, "an empty frontier");
  await frontier.push([req("https://a.test/")]);
  assert.equal(await frontier.ended(), false, "one waiting");
  const [lease] = await frontier.lease(1);
  assert.equal(await frontier.ended(), false, "one held");
  await frontier.finish(lease, [req("https://a.test/next")]);
  assert.equal(await frontier.ended(), false, "the page's link waiting");
  const [next] = await frontier.lease(1);
  await frontier.finish(next, []);
  assert.equal(await frontier.ended(), true);
});

Deno.test("giveBack puts requests back first, in the order they were leased", async () => {
  const frontier = new MemoryFrontier();
  await frontier.push(["a", "b", "c", "d"].map((name) => req(`https://a.test/${name}`)));
  const leases = await frontier.lease(3);
  await frontier.giveBack(leases);
  assert.deepEqual((await frontier.status()).held, 0);
  assert.deepEqual(urls(await frontier.lease(10)), [
    "https://a.test/a",
    "https://a.test/b",
    "https://a.test/c",
    "https://a.test/d",
  ]);
});

Deno.test("a request given back goes ahead of requests of its priority pushed after it was leased", async () => {
  const frontier = new MemoryFrontier();
  await frontier.push([req("https://a.test/first")]);
  const leases = await frontier.lease(1);
  await frontier.push([req("https://a.test/later"), req("https://a.test/urgent", { priority: 3 })]);
  await frontier.giveBack(leases);
  assert.deepEqual(urls(await frontier.lease(10)), [
    "https://a.test/urgent",
    "https://a.test/first",
    "https://a.test/later",
  ]);
});

Deno.test("given-back requests of several priorities each go back to their own priority", async () => {
  const frontier = new MemoryFrontier();
  await frontier.push([req("https://a.test/hi", { priority: 2 }), req("https://a.test/lo")]);
  const leases = await frontier.lease(2);
  await frontier.push([req("https://a.test/hi2", { priority: 2 }), req("https://a.test/lo2")]);
  await frontier.giveBack(leases);
  assert.deepEqual(urls(await frontier.lease(10)), [
    "https://a.test/hi",
    "https://a.test/hi2",
    "https://a.test/lo",
    "https://a.test/lo2",
  ]);
});

Deno.test("giveBack bypasses the duplicate filter but never doubles a request", async () => {
  const frontier = new MemoryFrontier();
  await frontier.push([req("https://a.test/")]);
  const leases = await frontier.lease(1);
  await frontier.giveBack(leases);
  await frontier.giveBack(leases);
  assert.equal((await frontier.status()).waiting, 1);
  const [again] = await frontier.lease(1);
  await frontier.finish(again, []);
  await frontier.giveBack([again]);
  assert.equal((await frontier.status()).waiting, 0, "a finished request cannot be given back");
  assert.equal(await frontier.ended(), true);
});

Deno.test("finishing a lease that was given back does not lose the waiting copy or double-count held", async () => {
  const frontier = new MemoryFrontier();
  await frontier.push([req("https://a.test/")]);
  const [lease] = await frontier.lease(1);
  await frontier.giveBack([lease]);
  await frontier.finish(lease, []);
  const status = await frontier.status();
  assert.equal(status.held, 0);
  assert.equal(status.waiting, 1);
});

Deno.test("status counts waiting, held, seen and queued requests for one process", async () => {
  const frontier = new MemoryFrontier();
  assert.deepEqual(await frontier.status(), { waiting: 0, held: 0, processes: 1, seen: 0, queued: 0 });
  await frontier.push([req("https://a.test/1"), req("https://a.test/2"), req("https://a.test/3")]);
  await frontier.push([req("https://a.test/1"), req("https://a.test/1", { dontFilter: true })]);
  const leases = await frontier.lease(2);
  assert.deepEqual(await frontier.status(), { waiting: 2, held: 2, processes: 1, seen: 3, queued: 4 });
  await frontier.finish(leases[0], [req("https://a.test/4")]);
  assert.deepEqual(await frontier.status(), { waiting: 3, held: 1, processes: 1, seen: 4, queued: 5 });
  await frontier.giveBack([leases[1]]);
  assert.deepEqual(await frontier.status(), { waiting: 4, held: 0, processes: 1, seen: 4, queued: 5 });
});

Deno.test("stats count requests pushed (from start or yielded) and leases taken", async () => {
  const frontier = new MemoryFrontier();
  assert.deepEqual(frontier.stats(), { pushed: 0, leased: 0 });
  await frontier.push([req("https://a.test/1"), req("https://a.test/2"), req("https://a.test/1")]);
  const [first] = await frontier.lease(1);
  await frontier.finish(first, [req("https://a.test/3"), req("https://a.test/2")]);
  assert.deepEqual(frontier.stats(), { pushed: 3, leased: 1 });
  const leases = await frontier.lease(5);
  await frontier.giveBack(leases);
  await frontier.lease(5);
  assert.deepEqual(frontier.stats(), { pushed: 3, leased: 5 });
});

Deno.test("two memory frontiers share nothing", async () => {
  const first = new MemoryFrontier();
  const second = new MemoryFrontier();
  await first.push([req("https://a.test/")]);
  assert.equal(await second.push([req("https://a.test/")]), 1);
  assert.equal((await first.lease(5)).length, 1);
  assert.equal((await second.lease(5)).length, 1);
  await first.close();
  await second.close();
});
