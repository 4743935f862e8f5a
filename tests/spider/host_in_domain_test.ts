import assert from "node:assert/strict";
import { hostInDomain, hostInDomains } from "../../src/spider/host_in_domain.ts";
import { hostAllowed } from "../../src/engine/admission.ts";
import { crawlCredentials } from "../../src/fetch/credentials.ts";
import { LinkExtractor } from "../../src/spider/link_extractor.ts";

Deno.test("a domain holds itself and its subdomains, never a look-alike", () => {
  assert.ok(hostInDomain("example.com", "example.com"));
  assert.ok(hostInDomain("a.b.example.com", "example.com"));
  assert.ok(hostInDomain("WWW.Example.COM.", ".example.com"));
  for (const host of ["badexample.com", "example.com.evil.test", "example.co", "com"]) {
    assert.equal(hostInDomain(host, "example.com"), false, host);
  }
});

Deno.test("an IP address is held only by itself: 0.0.1 does not hold 127.0.0.1", () => {
  assert.equal(hostInDomain("127.0.0.1", "0.0.1"), false);
  assert.equal(hostInDomain("127.0.0.1", "0.1"), false);
  assert.ok(hostInDomain("127.0.0.1", "127.0.0.1"));
  assert.ok(hostInDomain("[::1]", "::1"));
  assert.equal(hostInDomain("[fe80::1]", "1"), false);
  assert.equal(hostInDomains("127.0.0.1", []), false);
});

Deno.test("allowed domains, link extractor domains and credentials agree on IP addresses", () => {
  assert.equal(hostAllowed("127.0.0.1", ["0.0.1"]), false);
  assert.ok(hostAllowed("127.0.0.1", ["127.0.0.1:8080"]), "a port on an allowed domain is ignored");
  assert.ok(hostAllowed("[::1]", ["[::1]"]));
  assert.equal(crawlCredentials({ "0.0.1": { user: "u", password: "p" } }, new URL("http://127.0.0.1/")), undefined);
  const extractor = new LinkExtractor({ allowDomains: ["0.0.1"] });
  assert.equal(extractor.matches("http://127.0.0.1/a"), false);
  assert.ok(new LinkExtractor({ allowDomains: ["127.0.0.1"] }).matches("http://127.0.0.1/a"));
});
