import assert from "node:assert/strict";
import { makeResponse } from "../../src/spider/response.ts";
import { decodeRequest, encodeRequest, plainRequest, plainRequestParts } from "../../src/queue/codec.ts";
import { runCallback } from "../../src/spider/callbacks.ts";
import { Page } from "../../src/spider/page.ts";
import { Request } from "../../src/spider/request.ts";
import { Rule } from "../../src/spider/rule.ts";
import { Spider } from "../../src/spider/spider.ts";

class BaseSpider extends Spider {
  parseList() {
    return { list: true };
  }
}

class QueueSpider extends BaseSpider {
  override rules = [new Rule({ allow: "/item/", callback: "parseItem" }), new Rule({ allow: "/cat/" })];
  parseItem(page: Page, kwargs: Record<string, unknown>) {
    return { item: page.url, kwargs };
  }
  failed() {
    return null;
  }
  arrow = () => ({});
}

const spider = new QueueSpider();

Deno.test("a request with every field survives encoding and decoding", () => {
  const request = new Request({
    url: "https://127.0.0.1:8443/search?q=a%20b",
    method: "post",
    headers: { "content-type": "application/json", "x-token": "t" },
    body: '{"q":"a b"}',
    callback: spider.parseItem,
    errback: spider.failed,
    meta: { proxy: "http://127.0.0.1:3128", nested: { list: [1, "two", null, true] } },
    cbKwargs: { id: 7 },
    priority: -3.5,
    dontFilter: true,
    timeout: 12.5,
    allowRedirects: false,
    auth: { user: "me", password: "secret" },
    steps: [{ click: "#more" }, { wait_for: { selector: ".done" } }],
    render: true,
    depth: 4,
    rule: 1,
  });
  const decoded = decodeRequest(spider, encodeRequest(spider, request));
  assert.deepEqual(decoded.toInit(), { ...request.toInit(), callback: "parseItem", errback: "failed" });
});

Deno.test('render: "auto" travels in the queue as it is', () => {
  const json = encodeRequest(spider, new Request({ url: "http://127.0.0.1/p/1", render: "auto" }));
  assert.equal(JSON.parse(json).render, "auto");
  assert.equal(decodeRequest(spider, json).render, "auto");
});

Deno.test("a plain request encodes to its version and URL only", () => {
  const json = encodeRequest(spider, new Request("http://127.0.0.1/"));
  assert.equal(json, '{"v":1,"url":"http://127.0.0.1/"}');
  assert.deepEqual(decodeRequest(spider, json).toInit(), new Request("http://127.0.0.1/").toInit());
});

Deno.test("a plain request crosses as its parts and comes back as decoding its entry gives it, without a parse", () => {
  const requests = [
    new Request("https://127.0.0.1:8443/p/7.html?ref=a"),
    new Request({ url: "http://127.0.0.1/c/2.html", depth: 3, callback: spider.parseItem }),
    new Request({ url: "http://127.0.0.1/list", callback: "parseList", depth: 1 }),
  ];
  for (const request of requests) {
    const parts = plainRequestParts(spider, request);
    assert.ok(parts, request.url);
    const decoded = decodeRequest(spider, encodeRequest(spider, request));
    assert.deepEqual(plainRequest(parts).toInit(), decoded.toInit());
    assert.equal(plainRequest(parts).host, decoded.host);
  }
  assert.deepEqual(plainRequestParts(spider, requests[1]), ["http://127.0.0.1/c/2.html", "127.0.0.1", 3, "parseItem"]);
});

Deno.test("a request with anything more than a URL, a callback and a depth is not plain", () => {
  const url = "http://127.0.0.1/";
  const others = [
    { method: "POST" },
    { headers: { accept: "text/html" } },
    { body: "" },
    { errback: spider.failed },
    { meta: { a: 1 } },
    { cbKwargs: { id: 1 } },
    { priority: 1 },
    { dontFilter: true },
    { timeout: 5 },
    { allowRedirects: false },
    { auth: { user: "u", password: "p" } },
    { steps: [{ click: "#more" }] },
    { render: true },
    { render: "auto" as const },
    { rule: 0 },
  ];
  for (const other of others) {
    assert.equal(plainRequestParts(spider, new Request({ url, ...other })), undefined, JSON.stringify(other));
  }
  assert.equal(plainRequestParts(spider, new Request("mailto:someone@example.com")), undefined);
  assert.throws(() => plainRequestParts(spider, new Request({ url, callback: spider.arrow })), TypeError);
});

Deno.test("undefined meta properties are left out, as JSON leaves them", () => {
  const json = encodeRequest(spider, new Request({ url: "http://127.0.0.1/", meta: { a: 1, gone: undefined } }));
  assert.deepEqual(decodeRequest(spider, json).meta, { a: 1 });
});

Deno.test("callbacks travel by name, inherited methods included, and run the same method after decoding", async () => {
  const listJson = encodeRequest(spider, new Request({ url: "http://127.0.0.1/l", callback: spider.parseList }));
  assert.equal(JSON.parse(listJson).callback, "parseList");
  const json = encodeRequest(
    spider,
    new Request({ url: "http://127.0.0.1/i", callback: spider.parseItem, cbKwargs: { a: 1 } }),
  );
  const decoded = decodeRequest(spider, json);
  const page = new Page(makeResponse(decoded, { body: "" }));
  const results = [];
  for await (const result of runCallback(spider, decoded, page)) results.push(result);
  assert.deepEqual(results, [{ item: "http://127.0.0.1/i", kwargs: { a: 1 } }]);
});

Deno.test("requests that could not come back from a queue are refused when encoded", () => {
  const bad = [
    new Request({ url: "http://127.0.0.1/", callback: spider.arrow }),
    new Request({ url: "http://127.0.0.1/", callback: "closed" }),
    new Request({ url: "http://127.0.0.1/", errback: "constructor" }),
    new Request({ url: "http://127.0.0.1/", meta: { when: new Date() } }),
    new Request({ url: "http://127.0.0.1/", meta: { f: () => 1 } }),
    new Request({ url: "http://127.0.0.1/", cbKwargs: { n: NaN } }),
    new Request({ url: "http://127.0.0.1/", meta: { list: [undefined] } }),
    new Request({ url: "ftp://127.0.0.1/file" }),
  ];
  for (const request of bad) assert.throws(() => encodeRequest(spider, request), TypeError, request.url);
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.throws(() => encodeRequest(spider, new Request({ url: "http://127.0.0.1/", meta: { cyclic } })), TypeError);
});

const GARBAGE: Array<[string, string]> = [
  ["not JSON", "{nope"],
  ["an array", "[1,2]"],
  ["a string", '"http://127.0.0.1/"'],
  ["null", "null"],
  ["no version", '{"url":"http://127.0.0.1/"}'],
  ["another version", '{"v":2,"url":"http://127.0.0.1/"}'],
  ["no URL", '{"v":1}'],
  ["a relative URL", '{"v":1,"url":"/path"}'],
  ["a file URL", '{"v":1,"url":"file:///etc/passwd"}'],
  ["a javascript URL", '{"v":1,"url":"javascript:alert(1)"}'],
  ["an unknown field", '{"v":1,"url":"http://127.0.0.1/","extra":1}'],
  ["a __proto__ field", '{"v":1,"url":"http://127.0.0.1/","__proto__":{"polluted":true}}'],
  ["a method with a space", '{"v":1,"url":"http://127.0.0.1/","method":"GET X"}'],
  ["headers as a list", '{"v":1,"url":"http://127.0.0.1/","headers":["a"]}'],
  ["a header with a newline", '{"v":1,"url":"http://127.0.0.1/","headers":{"x":"a\\r\\nInjected: 1"}}'],
  ["a header value that is a number", '{"v":1,"url":"http://127.0.0.1/","headers":{"x":1}}'],
  ["a body that is an object", '{"v":1,"url":"http://127.0.0.1/","body":{}}'],
  ["callback constructor", '{"v":1,"url":"http://127.0.0.1/","callback":"constructor"}'],
  ["callback closed", '{"v":1,"url":"http://127.0.0.1/","callback":"closed"}'],
  ["callback start", '{"v":1,"url":"http://127.0.0.1/","callback":"start"}'],
  ["callback __proto__", '{"v":1,"url":"http://127.0.0.1/","callback":"__proto__"}'],
  ["callback toString", '{"v":1,"url":"http://127.0.0.1/","callback":"toString"}'],
  ["callback of an instance field", '{"v":1,"url":"http://127.0.0.1/","callback":"arrow"}'],
  ["an unknown callback", '{"v":1,"url":"http://127.0.0.1/","callback":"nope"}'],
  ["a callback that is not a string", '{"v":1,"url":"http://127.0.0.1/","callback":1}'],
  ["errback constructor", '{"v":1,"url":"http://127.0.0.1/","errback":"constructor"}'],
  ["meta as an array", '{"v":1,"url":"http://127.0.0.1/","meta":[]}'],
  ["cbKwargs as a string", '{"v":1,"url":"http://127.0.0.1/","cbKwargs":"x"}'],
  ["a priority that is a string", '{"v":1,"url":"http://127.0.0.1/","priority":"1"}'],
  ["dontFilter as a number", '{"v":1,"url":"http://127.0.0.1/","dontFilter":1}'],
  ["a zero timeout", '{"v":1,"url":"http://127.0.0.1/","timeout":0}'],
  ["allowRedirects as a string", '{"v":1,"url":"http://127.0.0.1/","allowRedirects":"no"}'],
  ["auth without a password", '{"v":1,"url":"http://127.0.0.1/","auth":{"user":"u"}}'],
  ["auth with extra fields", '{"v":1,"url":"http://127.0.0.1/","auth":{"user":"u","password":"p","x":1}}'],
  ["steps that are not objects", '{"v":1,"url":"http://127.0.0.1/","steps":["click"]}'],
  ["render as a string", '{"v":1,"url":"http://127.0.0.1/","render":"true"}'],
  ["render as another word", '{"v":1,"url":"http://127.0.0.1/","render":"sometimes"}'],
  ["a negative depth", '{"v":1,"url":"http://127.0.0.1/","depth":-1}'],
  ["a fractional depth", '{"v":1,"url":"http://127.0.0.1/","depth":1.5}'],
  ["a rule index out of range", '{"v":1,"url":"http://127.0.0.1/","rule":2}'],
  ["a negative rule index", '{"v":1,"url":"http://127.0.0.1/","rule":-1}'],
  ["a rule index that is a string", '{"v":1,"url":"http://127.0.0.1/","rule":"0"}'],
];

Deno.test("garbage from a queue is refused with a TypeError and a short reason", () => {
  for (const [what, json] of GARBAGE) {
    assert.throws(() => decodeRequest(spider, json), { name: "TypeError", message: /^bad queued request: / }, what);
  }
  assert.throws(() => decodeRequest(spider, 42 as unknown as string), TypeError);
  assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, "polluted"), false);
});

Deno.test("a queued request's rule must exist on the spider that decodes it", () => {
  const json = encodeRequest(spider, new Request({ url: "http://127.0.0.1/cat/1", rule: 1 }));
  assert.equal(decodeRequest(spider, json).rule, 1);
  class Fewer extends Spider {
    override rules = [new Rule({})];
  }
  assert.throws(() => decodeRequest(new Fewer(), json), /rule/);
});

Deno.test("special callback names decode when the spider has them; every spider has the built-in _sitemap", () => {
  class Special extends Spider {
    onBlock() {}
  }
  const special = new Special();
  assert.equal(decodeRequest(special, '{"v":1,"url":"http://127.0.0.1/","callback":"on_block"}').callback, "on_block");
  assert.equal(decodeRequest(special, '{"v":1,"url":"http://127.0.0.1/","callback":"parse"}').callback, "parse");
  assert.equal(decodeRequest(special, '{"v":1,"url":"http://127.0.0.1/","callback":"_sitemap"}').callback, "_sitemap");
  class Plain extends Spider {}
  assert.throws(() => decodeRequest(new Plain(), '{"v":1,"url":"http://127.0.0.1/","callback":"on_block"}'), TypeError);
});
