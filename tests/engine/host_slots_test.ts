/** Slots with the `hosts` setting: a host's own per_domain, delays and autothrottle; other hosts keep the crawl's. */
import assert from "node:assert/strict";
import { Slots } from "../../src/engine/slots.ts";

const T0 = 1_700_000_000_000; // an epoch ms to count from; nothing here reads the clock

function slots(hosts: Record<string, Record<string, unknown>>): Slots {
  return new Slots({ perDomain: 8, minDelay: 0, maxDelay: 60, autothrottle: true, autothrottleTarget: 4, hosts });
}

Deno.test("a host's entry gives it its own per_domain and min_delay; other hosts keep the crawl's", () => {
  const s = slots({ "api.example.com": { perDomain: 1, minDelay: 2, autothrottle: false } });
  s.start("api.example.com", T0);
  assert.equal(s.readyAt("api.example.com"), Infinity, "one in flight is all it may have");
  s.finish("api.example.com", { latency: 0.1, status: 200 }, T0);
  assert.equal(s.readyAt("api.example.com"), T0 + 2000);
  assert.equal(s.perDomain("api.example.com"), 1);
  s.start("www.example.com", T0);
  assert.equal(s.readyAt("www.example.com"), T0, "the crawl's min_delay of 0");
  assert.equal(s.perDomain("www.example.com"), 8);
});

Deno.test("a wildcard entry holds the subdomains, with its own max_delay and no autothrottle", () => {
  const s = slots({ "*.cdn.example.com": { per_domain: 3, max_delay: 1, autothrottle: false } });
  for (let i = 0; i < 3; i++) s.start("img.cdn.example.com", T0);
  assert.equal(s.readyAt("img.cdn.example.com"), Infinity);
  // A slow answer would raise autothrottle's delay; this host has none, and a 429's Retry-After stops at its max_delay.
  s.finish("img.cdn.example.com", { latency: 30, status: 429, retryAfter: 100 }, T0);
  assert.equal(s.delay("img.cdn.example.com"), 0);
  assert.equal(s.readyAt("img.cdn.example.com"), T0 + 1000);
  for (let i = 0; i < 3; i++) s.start("cdn.example.com", T0);
  assert.equal(s.readyAt("cdn.example.com"), T0, "the domain itself is not held by *.cdn.example.com");
});
