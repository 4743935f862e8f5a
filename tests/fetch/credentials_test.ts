import assert from "node:assert/strict";
import { basicAuthorization, crawlCredentials, credentialsFor } from "../../src/fetch/credentials.ts";
import { Request } from "../../src/spider/request.ts";

const A = { user: "a", password: "1" };
const B = { user: "b", password: "2" };

Deno.test("an httpAuth entry covers its host and every subdomain, never a look-alike", () => {
  const map = { "example.com": A };
  assert.deepEqual(crawlCredentials(map, new URL("https://example.com/")), A);
  assert.deepEqual(crawlCredentials(map, new URL("https://a.example.com/")), A);
  assert.deepEqual(crawlCredentials(map, new URL("https://deep.a.EXAMPLE.com/")), A);
  assert.equal(crawlCredentials(map, new URL("https://badexample.com/")), undefined);
  assert.equal(crawlCredentials(map, new URL("https://example.com.evil.org/")), undefined);
});

Deno.test("the nearest httpAuth entry wins, and a host:port entry beats the host", () => {
  const map = { "example.com": A, "shop.example.com": B, "example.com:8080": B };
  assert.deepEqual(crawlCredentials(map, new URL("https://x.shop.example.com/")), B);
  assert.deepEqual(crawlCredentials(map, new URL("http://example.com:8080/")), B);
  assert.deepEqual(crawlCredentials(map, new URL("http://example.com:9090/")), A);
});

Deno.test("an IP address matches only itself", () => {
  const map = { "0.0.1": A, "127.0.0.1": B };
  assert.deepEqual(crawlCredentials(map, new URL("http://127.0.0.1:80/")), B);
  assert.equal(crawlCredentials({ "0.1": A }, new URL("http://10.0.0.1/")), undefined);
});

Deno.test("a request's own credentials go to its host only, and not from https down to http", () => {
  const request = new Request({ url: "https://site.test/", auth: A });
  const origin = new URL(request.url);
  assert.deepEqual(credentialsFor(request, origin, new URL("https://site.test/next"), {}), A);
  assert.equal(credentialsFor(request, origin, new URL("https://other.test/"), { "other.test": B }), undefined);
  assert.equal(credentialsFor(request, origin, new URL("http://site.test/"), {}), undefined);
});

Deno.test("meta http_user and http_pass are a request's own credentials", () => {
  const request = new Request({ url: "https://site.test/", meta: { http_user: "m", http_pass: "p" } });
  assert.deepEqual(credentialsFor(request, new URL(request.url), new URL(request.url), { "site.test": A }), {
    user: "m",
    password: "p",
  });
});

Deno.test("basic authorization is base64 of user:password in UTF-8", () => {
  assert.equal(basicAuthorization({ user: "Aladdin", password: "open sesame" }), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
  assert.equal(basicAuthorization({ user: "test", password: "123£" }), "Basic dGVzdDoxMjPCow==");
});
