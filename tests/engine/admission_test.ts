import assert from "node:assert/strict";
import { Admission, type AdmissionSettings, hostAllowed } from "../../src/engine/admission.ts";
import { Request } from "../../src/spider/request.ts";

function admission(settings: Partial<AdmissionSettings> = {}, allowedDomains: string[] = []): Admission {
  return new Admission(
    { maxDepth: null, trapDetection: true, maxUrlLength: 2083, maxPagesPerDomain: null, ...settings },
    allowedDomains,
  );
}

const request = (url: string, depth = 0) => new Request({ url, depth });

Deno.test("with no allowed domains every host is allowed", () => {
  assert.ok(hostAllowed("anything.test", []));
  assert.ok(hostAllowed("127.0.0.1", []));
});

Deno.test("an allowed domain allows itself and its subdomains, at any depth", () => {
  const allowed = ["example.com"];
  assert.ok(hostAllowed("example.com", allowed));
  assert.ok(hostAllowed("www.example.com", allowed));
  assert.ok(hostAllowed("a.b.c.example.com", allowed));
});

Deno.test("look-alike hosts are offsite: evilexample.com is not example.com", () => {
  const allowed = ["example.com"];
  for (const host of ["evilexample.com", "example.com.evil.test", "example.co", "xample.com", "com"]) {
    assert.ok(!hostAllowed(host, allowed), host);
  }
});

Deno.test("an allowed subdomain does not allow its parent or its siblings", () => {
  assert.ok(!hostAllowed("example.com", ["shop.example.com"]));
  assert.ok(!hostAllowed("blog.example.com", ["shop.example.com"]));
  assert.ok(hostAllowed("eu.shop.example.com", ["shop.example.com"]));
});

Deno.test("allowed domains are matched without regard to case, a trailing dot or a leading dot", () => {
  assert.ok(hostAllowed("WWW.Example.COM", ["example.com"]));
  assert.ok(hostAllowed("www.example.com", ["EXAMPLE.com"]));
  assert.ok(hostAllowed("www.example.com.", ["example.com"]));
  assert.ok(hostAllowed("www.example.com", [".example.com"]));
});

Deno.test("an allowed domain written with a port allows its host", () => {
  assert.ok(hostAllowed("127.0.0.1", ["127.0.0.1:8080"]));
  assert.ok(hostAllowed("shop.example.com", ["example.com:443"]));
  assert.ok(!hostAllowed("127.0.0.2", ["127.0.0.1:8080"]));
});

Deno.test("any one of several allowed domains lets a host in", () => {
  const allowed = ["a.test", "b.test"];
  assert.ok(hostAllowed("x.b.test", allowed));
  assert.ok(!hostAllowed("c.test", allowed));
});

Deno.test("a yielded request to another site is refused as offsite, naming the host", () => {
  const gate = admission({}, ["example.com"]);
  assert.equal(gate.checkYielded(request("https://www.example.com/page")), undefined);
  assert.deepEqual(gate.checkYielded(request("https://evilexample.com/page")), {
    reason: "offsite",
    detail: "evilexample.com",
  });
});

Deno.test("a yielded request on the allowed host at another port is not offsite", () => {
  const gate = admission({}, ["127.0.0.1:8080"]);
  assert.equal(gate.checkYielded(request("http://127.0.0.1:9090/")), undefined);
  assert.equal(gate.checkYielded(request("http://127.0.0.1:8080/")), undefined);
});

Deno.test("a request deeper than max_depth is refused, and one at max_depth is not", () => {
  const gate = admission({ maxDepth: 2 });
  assert.equal(gate.checkYielded(request("https://a.test/x", 2)), undefined);
  assert.deepEqual(gate.checkYielded(request("https://a.test/x", 3)), { reason: "depth", detail: "3" });
});

Deno.test("max_depth 0 lets only start requests through, and no max_depth lets any depth through", () => {
  assert.equal(admission({ maxDepth: 0 }).checkYielded(request("https://a.test/", 0)), undefined);
  assert.equal(admission({ maxDepth: 0 }).checkYielded(request("https://a.test/", 1))?.reason, "depth");
  assert.equal(admission({ maxDepth: null }).checkYielded(request("https://a.test/", 10_000)), undefined);
});

Deno.test("a trap URL is refused with the trap's reason while trap detection is on, and let through when off", () => {
  const url = "https://a.test/x/x/x";
  assert.deepEqual(admission().checkYielded(request(url)), { reason: "trap", detail: "repeating path segments" });
  assert.equal(admission({ trapDetection: false }).checkYielded(request(url)), undefined);
});

Deno.test("max_url_length decides which URLs are too long", () => {
  const url = "https://a.test/" + "x".repeat(100);
  assert.deepEqual(admission({ maxUrlLength: 50 }).checkYielded(request(url)), {
    reason: "trap",
    detail: "url too long",
  });
  assert.equal(admission({ maxUrlLength: 2083 }).checkYielded(request(url)), undefined);
});

Deno.test("offsite is told before depth and traps", () => {
  const gate = admission({ maxDepth: 1 }, ["a.test"]);
  assert.equal(gate.checkYielded(request("https://b.test/x/x/x", 5))?.reason, "offsite");
});

Deno.test("a request taken from the queue is checked again: offsite, depth and traps", () => {
  const gate = admission({ maxDepth: 1 }, ["a.test"]);
  assert.equal(gate.checkLeased(request("https://b.test/"))?.reason, "offsite");
  assert.equal(gate.checkLeased(request("https://a.test/", 2))?.reason, "depth");
  assert.equal(gate.checkLeased(request("https://a.test/y/y/y"))?.reason, "trap");
  assert.equal(gate.checkLeased(request("https://a.test/ok", 1)), undefined);
});

Deno.test("max_pages_per_domain lets that many requests per host through and refuses the rest", () => {
  const gate = admission({ maxPagesPerDomain: 2 });
  assert.equal(gate.checkLeased(request("https://a.test/1")), undefined);
  assert.equal(gate.checkLeased(request("https://a.test/2")), undefined);
  assert.deepEqual(gate.checkLeased(request("https://a.test/3")), { reason: "max_pages_per_domain", detail: "a.test" });
  assert.deepEqual(gate.checkLeased(request("https://a.test/4")), { reason: "max_pages_per_domain", detail: "a.test" });
  assert.equal(gate.checkLeased(request("https://b.test/1")), undefined, "another host has its own count");
  assert.equal(gate.checkLeased(request("https://sub.a.test/1")), undefined, "a subdomain is another host");
});

Deno.test("max_pages_per_domain counts only leased requests, never yielded ones", () => {
  const gate = admission({ maxPagesPerDomain: 1 });
  for (let i = 0; i < 10; i++) assert.equal(gate.checkYielded(request(`https://a.test/${i}`)), undefined);
  assert.equal(gate.checkLeased(request("https://a.test/first")), undefined);
  assert.equal(gate.checkLeased(request("https://a.test/second"))?.reason, "max_pages_per_domain");
});

Deno.test("requests refused for another reason do not count against max_pages_per_domain", () => {
  const gate = admission({ maxPagesPerDomain: 1, maxDepth: 0 });
  assert.equal(gate.checkLeased(request("https://a.test/deep", 3))?.reason, "depth");
  assert.equal(gate.checkLeased(request("https://a.test/z/z/z"))?.reason, "trap");
  assert.equal(gate.checkLeased(request("https://a.test/ok")), undefined);
});

Deno.test("no max_pages_per_domain lets any number of requests through", () => {
  const gate = admission();
  for (let i = 0; i < 500; i++) assert.equal(gate.checkLeased(request(`https://a.test/${i}`)), undefined);
});

Deno.test("endless query variants of one path are refused once taken from the queue past the cap", () => {
  const gate = admission();
  for (let i = 0; i < 2000; i++) assert.equal(gate.checkLeased(request(`https://a.test/cal?s=${i}`)), undefined);
  assert.deepEqual(gate.checkLeased(request("https://a.test/cal?s=x")), {
    reason: "trap",
    detail: "endless query variants",
  });
  assert.equal(gate.checkYielded(request("https://a.test/cal?s=y")), undefined, "yielded requests are not counted");
});

Deno.test("query variants are not counted when trap detection is off", () => {
  const gate = admission({ trapDetection: false });
  for (let i = 0; i < 2100; i++) assert.equal(gate.checkLeased(request(`https://a.test/cal?s=${i}`)), undefined);
});

Deno.test("two admissions share no counts", () => {
  const first = admission({ maxPagesPerDomain: 1 });
  const second = admission({ maxPagesPerDomain: 1 });
  assert.equal(first.checkLeased(request("https://a.test/1")), undefined);
  assert.equal(second.checkLeased(request("https://a.test/1")), undefined);
  assert.equal(first.checkLeased(request("https://a.test/2"))?.reason, "max_pages_per_domain");
});

Deno.test("a request noted as queued is known again by its URL without the fragment, and no other is", () => {
  const gate = admission();
  gate.noteQueued(request("http://a.test/p?x=1#top", 1));
  assert.ok(gate.queuedLately(request("http://a.test/p?x=1", 1)));
  assert.ok(gate.queuedLately(request("http://a.test/p?x=1#other", 3)));
  assert.ok(!gate.queuedLately(request("http://a.test/p?x=2", 1)));
  assert.ok(!gate.queuedLately(request("http://b.test/p?x=1", 1)));
});

Deno.test("requests the frontier does not filter by URL alone are never taken for queued: dontFilter, POST, a body", () => {
  const gate = admission();
  const url = "http://a.test/form";
  gate.noteQueued(request(url));
  assert.ok(!gate.queuedLately(new Request({ url, dontFilter: true })));
  assert.ok(!gate.queuedLately(new Request({ url, method: "POST" })));
  assert.ok(!gate.queuedLately(new Request({ url, body: "q=1" })));
  gate.noteQueued(new Request({ url: "http://a.test/once", dontFilter: true }));
  assert.ok(!gate.queuedLately(request("http://a.test/once")), "a dontFilter request is not noted either");
});

Deno.test("a queued link seen again deeper than max_depth is left to the depth check, which refuses it", () => {
  const gate = admission({ maxDepth: 2 });
  gate.noteQueued(request("http://a.test/p", 2));
  assert.ok(gate.queuedLately(request("http://a.test/p", 2)));
  assert.ok(!gate.queuedLately(request("http://a.test/p", 3)));
  assert.equal(gate.checkYielded(request("http://a.test/p", 3))?.reason, "depth");
});

Deno.test("allowed domains written out once answer as hostAllowed does", () => {
  const domains = ["Example.com.", ".shop.test", "127.0.0.1", "[::1]", "host.test:8080", ""];
  const gate = admission({}, domains);
  for (
    const host of ["example.com", "www.example.com", "a.shop.test", "shop.test", "127.0.0.1", "[::1]", "host.test"]
  ) {
    assert.ok(gate.hostAllowed(host), host);
    assert.equal(gate.hostAllowed(host), hostAllowed(host, domains));
  }
  for (const host of ["badexample.com", "0.0.1", "evil.test", "127.0.0.2"]) {
    assert.ok(!gate.hostAllowed(host), host);
    assert.equal(gate.hostAllowed(host), hostAllowed(host, domains));
  }
});
