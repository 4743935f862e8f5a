import assert from "node:assert/strict";
import { canonicalUrl, fingerprint } from "../../src/spider/fingerprint.ts";
import { Request } from "../../src/spider/request.ts";

const get = (url: string) => fingerprint({ method: "GET", url });

Deno.test("a fingerprint is 40 lower-case hex characters and the same every time", () => {
  const print = get("https://example.com/a");
  assert.match(print, /^[0-9a-f]{40}$/);
  assert.equal(get("https://example.com/a"), print);
});

Deno.test("the canonical URL lower-cases scheme and host, drops the default port and fragment, sorts the query", () => {
  assert.equal(canonicalUrl("HTTP://A.Example.COM:80/p?b=2&a=1#x"), "http://a.example.com/p?a=1&b=2");
  assert.equal(canonicalUrl("https://example.com:443/"), "https://example.com/");
  assert.equal(canonicalUrl(new URL("https://example.com/#top")), "https://example.com/");
});

Deno.test("scheme and host case, default ports and fragments do not change the fingerprint", () => {
  const print = get("http://example.com/page");
  for (
    const url of [
      "HTTP://EXAMPLE.COM/page",
      "http://Example.com:80/page",
      "http://example.com/page#section",
      "http://example.com/page#",
    ]
  ) assert.equal(get(url), print, url);
  assert.equal(get("https://example.com:443/x"), get("https://example.com/x"));
});

Deno.test("the order of query parameters does not change the fingerprint", () => {
  const print = get("https://example.com/s?a=1&b=2&c=3");
  assert.equal(get("https://example.com/s?c=3&a=1&b=2"), print);
  assert.equal(get("https://example.com/s?b=2&c=3&a=1#frag"), print);
  assert.equal(get("https://example.com/s?k=2&k=1"), get("https://example.com/s?k=1&k=2"));
});

Deno.test("the same query written with different encodings is the same request", () => {
  assert.equal(get("https://example.com/s?q=a%20b"), get("https://example.com/s?q=a+b"));
  assert.equal(get("https://example.com/s?q=%7E"), get("https://example.com/s?q=~"));
});

Deno.test("unreserved characters percent-encoded or not are one URL, in the path and in the query", () => {
  assert.equal(get("https://example.com/%7Euser/a%2Db"), get("https://example.com/~user/a-b"));
  assert.equal(get("https://example.com/%7euser"), get("https://example.com/~user"));
  assert.equal(get("https://example.com/s?q=%41%62c"), get("https://example.com/s?q=Abc"));
  // Escapes of other characters are not undone: %2F is not a path separator.
  assert.notEqual(get("https://example.com/a%2Fb"), get("https://example.com/a/b"));
  assert.equal(get("https://example.com/a%2fb"), get("https://example.com/a%2Fb"));
});

Deno.test("queries in a legacy encoding keep their bytes: two Shift_JIS words are two requests", () => {
  assert.notEqual(get("https://example.com/s?q=%93%FA%96%7B"), get("https://example.com/s?q=%94%FA%96%7B"));
  assert.equal(get("https://example.com/s?q=%93%fa%96%7b"), get("https://example.com/s?q=%93%FA%96%7B"));
});

Deno.test("an empty query is no query", () => {
  assert.equal(get("https://example.com/s?"), get("https://example.com/s"));
  assert.equal(get("https://example.com/s?&"), get("https://example.com/s"));
  assert.equal(canonicalUrl("https://example.com/s?#x"), "https://example.com/s");
});

Deno.test("path, path case, scheme, non-default port and query values all change the fingerprint", () => {
  const base = get("http://example.com/Page?a=1");
  for (
    const url of [
      "http://example.com/page?a=1",
      "https://example.com/Page?a=1",
      "http://example.com:8080/Page?a=1",
      "http://example.com/Page?a=2",
      "http://example.com/Page?A=1",
      "http://example.com/Page?a=1&b=",
      "http://example.com/Page/?a=1",
      "http://www.example.com/Page?a=1",
    ]
  ) assert.notEqual(get(url), base, url);
});

Deno.test("the method matters, but not its case", () => {
  const url = "https://example.com/form";
  assert.notEqual(fingerprint({ method: "POST", url }), fingerprint({ method: "GET", url }));
  assert.notEqual(fingerprint({ method: "HEAD", url }), fingerprint({ method: "GET", url }));
  assert.equal(fingerprint({ method: "post", url }), fingerprint({ method: "POST", url }));
});

Deno.test("the body matters: different bodies differ, the same body is the same request", () => {
  const url = "https://example.com/api";
  const a = fingerprint({ method: "POST", url, body: '{"page":1}' });
  const b = fingerprint({ method: "POST", url, body: '{"page":2}' });
  assert.notEqual(a, b);
  assert.equal(fingerprint({ method: "POST", url, body: '{"page":1}' }), a);
  assert.notEqual(fingerprint({ method: "POST", url }), a);
});

Deno.test("a body cannot be mistaken for part of the URL", () => {
  const withBody = fingerprint({ method: "POST", url: "https://example.com/a", body: "x" });
  const otherUrl = fingerprint({ method: "POST", url: "https://example.com/ax" });
  assert.notEqual(withBody, otherUrl);
});

Deno.test("a Request's headers, callback, priority and meta do not change its fingerprint", () => {
  const plain = new Request("https://example.com/p?b=1&a=2");
  const dressed = new Request({
    url: "https://EXAMPLE.com/p?a=2&b=1#top",
    method: "get",
    headers: { "x-a": "1" },
    callback: "parseItem",
    priority: 9,
    meta: { any: "thing" },
    dontFilter: true,
  });
  assert.equal(fingerprint(dressed), fingerprint(plain));
});

Deno.test("a fingerprint is the SHA-1 of method, canonical URL and body hash, so filters made before stay valid", async () => {
  const { hash } = await import("node:crypto");
  assert.equal(get("https://example.com/a"), hash("sha1", "GET\nhttps://example.com/a\n", "hex"));
  const body = "q=1";
  assert.equal(
    fingerprint({ method: "post", url: "https://example.com/s", body }),
    hash("sha1", `POST\nhttps://example.com/s\n${hash("sha1", body, "hex")}`, "hex"),
  );
});
