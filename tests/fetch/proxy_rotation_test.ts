import assert from "node:assert/strict";
import { ProxyRotation } from "../../src/fetch/proxy_rotation.ts";

const LIST = ["http://p1:1", "http://p2:2", "http://p3:3"];

Deno.test("per request the proxies are taken round the list", () => {
  const rotation = new ProxyRotation(LIST, "per_request");
  const chosen = Array.from({ length: 5 }, () => rotation.choose("a.test"));
  assert.deepEqual(chosen, [LIST[0], LIST[1], LIST[2], LIST[0], LIST[1]]);
});

Deno.test("no rotation with a list of proxies means per request", () => {
  const rotation = new ProxyRotation(LIST, null);
  assert.deepEqual([rotation.choose("a"), rotation.choose("a")], [LIST[0], LIST[1]]);
});

Deno.test("per domain each host keeps one proxy and hosts spread over the list", () => {
  const rotation = new ProxyRotation(LIST, "per_domain");
  const hosts = ["a.test", "b.test", "c.test"];
  const first = hosts.map((host) => rotation.choose(host));
  assert.equal(new Set(first).size, 3);
  for (let i = 0; i < 4; i++) assert.deepEqual(hosts.map((host) => rotation.choose(host)), first);
});

Deno.test("next skips excluded proxies, and per domain the host moves to the new one", () => {
  const rotation = new ProxyRotation(LIST, "per_domain");
  const first = rotation.choose("a.test")!;
  const second = rotation.next("a.test", [first])!;
  assert.notEqual(second, first);
  assert.equal(rotation.choose("a.test"), second);
  assert.equal(rotation.next("a.test", LIST), undefined);
  const third = rotation.next("a.test", [first, second]);
  assert.equal(new Set([first, second, third]).size, 3);
});

Deno.test("next per request avoids the excluded proxies", () => {
  const rotation = new ProxyRotation(LIST, "per_request");
  for (let i = 0; i < 6; i++) assert.notEqual(rotation.next("a", [LIST[1]]), LIST[1]);
});

Deno.test("without proxies nothing is chosen", () => {
  const rotation = new ProxyRotation([], null);
  assert.equal(rotation.choose("a"), undefined);
  assert.equal(rotation.next("a", []), undefined);
});

Deno.test("an unknown rotation is refused", () => {
  assert.throws(() => new ProxyRotation(LIST, "random"), RangeError);
});
