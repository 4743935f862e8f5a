import assert from "node:assert/strict";
import { makeResponse } from "../../src/spider/response.ts";
import {
  callbackName,
  drainCallback,
  resolveCallback,
  runCallback,
  runErrback,
  spiderAttributeAllowed,
} from "../../src/spider/callbacks.ts";
import type { Page as PageType } from "../../src/spider/page.ts";
import { Page } from "../../src/spider/page.ts";
import { Request } from "../../src/spider/request.ts";
import { Rule } from "../../src/spider/rule.ts";
import { Spider } from "../../src/spider/spider.ts";
import type { Item } from "../../src/spider/types.ts";

class BaseShop extends Spider {
  parseList(page: PageType) {
    return { from: "base list", url: page.url };
  }
  parseItem(_page: PageType) {
    return { from: "base item" };
  }
}

class Shop extends BaseShop {
  override name = "shop";
  arrow = (_page: PageType) => ({ arrow: true });

  override parse(page: PageType) {
    return { parsed: page.url };
  }
  override parseItem(_page: PageType) {
    return { from: "shop item", spider: this.name };
  }
  withKwargs(_page: PageType, kwargs: Record<string, unknown>) {
    return { kwargs };
  }
  onBlock(_page: PageType) {
    return { blocked: true };
  }
  override _sitemap(_page: PageType) {
    return { sitemap: true };
  }
  get computed() {
    throw new Error("getters are never called while looking for callbacks");
  }
  override toString() {
    return "Shop";
  }
}

function page(request: Request, html = ""): Page {
  return new Page(makeResponse(request, { headers: { "content-type": "text/html" }, body: html }));
}

async function collect(results: AsyncIterable<Item | Request>): Promise<Array<Item | Request>> {
  const out: Array<Item | Request> = [];
  for await (const result of results) out.push(result);
  return out;
}

Deno.test("callbackName gives a method's name, searching the prototype chain", () => {
  const spider = new Shop();
  assert.equal(callbackName(spider, spider.parseItem), "parseItem");
  assert.equal(callbackName(spider, spider.parseList), "parseList", "inherited from BaseShop");
  assert.equal(callbackName(spider, spider.parse), "parse");
  assert.equal(callbackName(spider, "anything"), "anything");
  assert.equal(callbackName(spider, undefined), undefined);
});

Deno.test("callbackName refuses arrow functions, bound methods and functions that are not methods", () => {
  const spider = new Shop();
  for (const ref of [spider.arrow, spider.parseItem.bind(spider), () => 1, BaseShop.prototype.parseItem]) {
    assert.throws(() => callbackName(spider, ref), {
      name: "TypeError",
      message: /callback is not a method of the spider/,
    });
  }
  assert.throws(() => callbackName(spider, 42 as unknown as string), TypeError);
  assert.throws(() => callbackName(spider, spider.closed), TypeError);
});

Deno.test("resolveCallback finds own, inherited and special methods, bound to the spider", async () => {
  const spider = new Shop();
  const request = new Request("http://127.0.0.1/p");
  assert.deepEqual(await resolveCallback(spider, "parseItem")(page(request)), {
    from: "shop item",
    spider: "shop",
  });
  assert.deepEqual(resolveCallback(spider, "parseList")(page(request)), {
    from: "base list",
    url: "http://127.0.0.1/p",
  });
  assert.deepEqual(resolveCallback(spider, "on_block")(page(request)), { blocked: true });
  assert.deepEqual(resolveCallback(spider, "onBlock")(page(request)), { blocked: true });
  assert.deepEqual(resolveCallback(spider, "_sitemap")(page(request)), { sitemap: true });
  assert.equal(resolveCallback(spider, "parse"), resolveCallback(spider, "parse"), "cached per spider");
});

Deno.test("resolveCallback refuses constructor, dunders, Object's and Spider's members and unknown names", () => {
  const spider = new Shop();
  for (
    const name of [
      "constructor",
      "__proto__",
      "__defineGetter__",
      "toString",
      "hasOwnProperty",
      "valueOf",
      "closed",
      "start",
      "arrow",
      "computed",
      "name",
      "startUrls",
      "missing",
      "",
    ]
  ) {
    assert.throws(() => resolveCallback(spider, name), TypeError, name);
  }
});

Deno.test("a spider with no onBlock cannot be called back under that name; _sitemap is every spider's", () => {
  class Plain extends Spider {}
  assert.throws(() => resolveCallback(new Plain(), "on_block"), TypeError);
  assert.equal(typeof resolveCallback(new Plain(), "_sitemap"), "function");
});

/** A spider whose callbacks return every style a callback may use. */
class Styles extends Spider {
  value() {
    return { style: "value" };
  }
  array() {
    return [{ n: 1 }, null, new Request("http://127.0.0.1/next"), undefined, { n: 2 }];
  }
  *generator() {
    yield { n: 1 };
    yield undefined;
    yield new Request("http://127.0.0.1/g");
  }
  async *asyncGenerator(page: PageType) {
    await Promise.resolve();
    yield { url: page.url };
    for (const href of page.css("a").attrs("href")) yield page.follow(href);
  }
  async promiseOfArray() {
    await Promise.resolve();
    return [{ n: 1 }, { n: 2 }];
  }
  promiseOfValue() {
    return Promise.resolve({ n: 1 });
  }
  async promiseOfAsyncIterable() {
    await Promise.resolve();
    const isStyles = this instanceof Styles;
    return (async function* () {
      yield await Promise.resolve({ nested: true, self: isStyles });
    })();
  }
  nothing() {}
  iterable() {
    return new Set([{ n: 1 }]);
  }
  arrayOfPromises() {
    return [Promise.resolve({ n: 1 }), Promise.resolve(null)];
  }
  returnsString() {
    return "oops";
  }
  *yieldsNumber() {
    yield { ok: 1 };
    yield 42;
  }
  returnsMap() {
    return new Map([["a", 1]]);
  }
  async *yieldsClassInstance() {
    yield new URL("http://127.0.0.1/");
  }
  throws() {
    throw new RangeError("broken callback");
  }
  *throwsMidway() {
    yield { n: 1 };
    yield new Request("http://127.0.0.1/before");
    throw new RangeError("midway");
  }
  *yieldsPromises() {
    yield Promise.resolve({ n: 1 });
    yield { n: 2 };
    yield Promise.resolve(new Request("http://127.0.0.1/promised"));
  }
}

Deno.test("every callback style is normalised into items and requests, skipping null and undefined", async () => {
  const spider = new Styles();
  const html = '<a href="/x">x</a><a href="/y">y</a>';
  const run = async (callback: string) =>
    await collect(
      runCallback(
        spider,
        new Request({ url: "http://127.0.0.1/p", callback }),
        page(new Request("http://127.0.0.1/p"), html),
      ),
    );
  assert.deepEqual(await run("value"), [{ style: "value" }]);
  const array = await run("array");
  assert.deepEqual(array.map((r) => r instanceof Request ? r.url : r), [{ n: 1 }, "http://127.0.0.1/next", { n: 2 }]);
  const generated = await run("generator");
  assert.deepEqual(generated.map((r) => r instanceof Request ? r.url : r), [{ n: 1 }, "http://127.0.0.1/g"]);
  const asyncGenerated = await run("asyncGenerator");
  assert.deepEqual(asyncGenerated.map((r) => r instanceof Request ? [r.url, r.depth] : r), [
    { url: "http://127.0.0.1/p" },
    ["http://127.0.0.1/x", 1],
    ["http://127.0.0.1/y", 1],
  ]);
  assert.deepEqual(await run("promiseOfArray"), [{ n: 1 }, { n: 2 }]);
  assert.deepEqual(await run("promiseOfValue"), [{ n: 1 }]);
  assert.deepEqual(await run("promiseOfAsyncIterable"), [{ nested: true, self: true }]);
  assert.deepEqual(await run("nothing"), []);
  assert.deepEqual(await run("iterable"), [{ n: 1 }]);
  assert.deepEqual(await run("arrayOfPromises"), [{ n: 1 }]);
});

Deno.test("a callback producing something that is neither an item nor a request is a TypeError naming it", async () => {
  const spider = new Styles();
  const run = (callback: string) =>
    collect(
      runCallback(
        spider,
        new Request({ url: "http://127.0.0.1/p", callback }),
        page(new Request("http://127.0.0.1/p")),
      ),
    );
  await assert.rejects(run("returnsString"), {
    name: "TypeError",
    message: /callback returnsString produced a string/,
  });
  await assert.rejects(run("yieldsNumber"), { name: "TypeError", message: /callback yieldsNumber produced a number/ });
  // a Map is iterable, so its entries are what it yields
  await assert.rejects(run("returnsMap"), { name: "TypeError", message: /returnsMap produced an array/ });
  await assert.rejects(run("yieldsClassInstance"), {
    name: "TypeError",
    message: /yieldsClassInstance produced an instance of URL/,
  });
  await assert.rejects(run("throws"), RangeError);
  await assert.rejects(run("constructor"), TypeError);
});

Deno.test("a request's callback given as a method runs with the spider as this and gets cbKwargs", async () => {
  const spider = new Shop();
  const items = await collect(
    runCallback(
      spider,
      new Request({ url: "http://127.0.0.1/p", callback: spider.withKwargs, cbKwargs: { id: 7 } }),
      page(new Request("http://127.0.0.1/p")),
    ),
  );
  assert.deepEqual(items, [{ kwargs: { id: 7 } }]);
  const own = await collect(
    runCallback(
      spider,
      new Request({ url: "http://127.0.0.1/p", callback: spider.parseItem }),
      page(new Request("http://127.0.0.1/p")),
    ),
  );
  assert.deepEqual(own, [{ from: "shop item", spider: "shop" }]);
});

Deno.test("a request with neither callback nor rule goes to parse", async () => {
  const spider = new Shop();
  const request = new Request("http://127.0.0.1/start");
  assert.deepEqual(await collect(runCallback(spider, request, page(request))), [{ parsed: "http://127.0.0.1/start" }]);
});

Deno.test("an arrow function callback fails when the page comes back", async () => {
  const spider = new Shop();
  const request = new Request({ url: "http://127.0.0.1/p", callback: spider.arrow });
  await assert.rejects(collect(runCallback(spider, request, page(request))), /callback is not a method of the spider/);
});

const RULES_HTML = '<a href="/item/1">1</a><a href="/cat/2">2</a><a href="mailto:a@b.test">m</a>';

class Crawl extends Spider {
  override rules = [
    new Rule({ allow: "/item/", callback: "parseItem" }),
    new Rule({ allow: "/cat/" }),
  ];
  parseItem(page: PageType) {
    return { item: page.url };
  }
}

class CrawlWithStart extends Crawl {
  parseStartUrl(page: PageType) {
    return { start: page.url };
  }
}

Deno.test("a spider with rules and no parse of its own follows every rule from a start page", async () => {
  const request = new Request("http://127.0.0.1/");
  const results = await collect(runCallback(new Crawl(), request, page(request, RULES_HTML)));
  assert.deepEqual(results.map((r) => r instanceof Request ? [r.url, r.rule, r.callback] : r), [
    ["http://127.0.0.1/item/1", 0, undefined],
    ["http://127.0.0.1/cat/2", 1, undefined],
  ]);
  const withStart = await collect(runCallback(new CrawlWithStart(), request, page(request, RULES_HTML)));
  assert.deepEqual(withStart[0], { start: "http://127.0.0.1/" });
  assert.equal(withStart.length, 3);
});

Deno.test("a rule's page goes to the rule's callback, and only a following rule's page yields more requests", async () => {
  const spider = new Crawl();
  const itemRequest = new Request({ url: "http://127.0.0.1/item/1", rule: 0 });
  assert.deepEqual(await collect(runCallback(spider, itemRequest, page(itemRequest, RULES_HTML))), [
    { item: "http://127.0.0.1/item/1" },
  ]);
  const catRequest = new Request({ url: "http://127.0.0.1/cat/2", rule: 1 });
  const followed = await collect(runCallback(spider, catRequest, page(catRequest, RULES_HTML)));
  assert.deepEqual(followed.map((r) => (r as Request).url), ["http://127.0.0.1/item/1", "http://127.0.0.1/cat/2"]);
  const missing = new Request({ url: "http://127.0.0.1/x", rule: 5 });
  await assert.rejects(collect(runCallback(spider, missing, page(missing))), TypeError);
});

Deno.test("a rule whose callback also follows yields the callback's results and then the rule requests", async () => {
  class Both extends Spider {
    override rules = [new Rule({ allow: "/", callback: this.parseAll, follow: true })];
    parseAll(page: PageType) {
      return { seen: page.url };
    }
  }
  const request = new Request({ url: "http://127.0.0.1/item/1", rule: 0 });
  const results = await collect(runCallback(new Both(), request, page(request, RULES_HTML)));
  assert.deepEqual(results[0], { seen: "http://127.0.0.1/item/1" });
  assert.deepEqual(results.slice(1).map((r) => (r as Request).url), [
    "http://127.0.0.1/item/1",
    "http://127.0.0.1/cat/2",
  ]);
});

Deno.test("an errback is called with the error and the request, and its results are normalised", async () => {
  class WithErrback extends Spider {
    async *failed(failure: { error: unknown; request: Request }) {
      yield { error: (failure.error as Error).message, url: failure.request.url };
      yield failure.request.replace({ dontFilter: true });
    }
  }
  const spider = new WithErrback();
  const request = new Request({ url: "http://127.0.0.1/broken", errback: spider.failed });
  const results = await collect(runErrback(spider, request, new Error("timed out")));
  assert.deepEqual(results[0], { error: "timed out", url: "http://127.0.0.1/broken" });
  assert.equal((results[1] as Request).dontFilter, true);
  assert.deepEqual(await collect(runErrback(spider, new Request("http://127.0.0.1/"), new Error("x"))), []);
});

Deno.test("spider argument names must be identifiers that do not replace anything a Spider has", () => {
  for (const name of ["category", "maxPrice", "max_price", "Category2"]) {
    assert.equal(spiderAttributeAllowed(name), undefined, name);
  }
  for (
    const name of [
      "_private",
      "__proto__",
      "2fast",
      "with-dash",
      "",
      "has space",
      "name",
      "start_urls",
      "startUrls",
      "allowed_domains",
      "settings",
      "rules",
      "log",
      "parse",
      "start",
      "closed",
      "toString",
      "constructor",
    ]
  ) {
    assert.equal(typeof spiderAttributeAllowed(name), "string", name);
  }
  assert.match(spiderAttributeAllowed("allowed_domains")!, /allowedDomains/);
});

/** What a callback's run gives: its outputs (requests by URL, depth, rule) up to an error, and the error. */
async function outcome(run: (take: (out: Item | Request) => boolean) => unknown) {
  const outputs: unknown[] = [];
  let error: string | undefined;
  try {
    await run((out) => {
      outputs.push(out instanceof Request ? [out.url, out.depth, out.rule, out.callback] : out);
      return true;
    });
  } catch (thrown) {
    error = `${(thrown as Error).name}: ${(thrown as Error).message}`;
  }
  return { outputs, error };
}

Deno.test("drainCallback hands over what runCallback yields, in order, and fails where it fails", async () => {
  const html = '<a href="/x">x</a><a href="./y?q=1#f">y</a>';
  const cases: Array<[Spider, Request]> = [
    ...Object.getOwnPropertyNames(Styles.prototype).filter((name) => name !== "constructor").map((
      callback,
    ): [Spider, Request] => [new Styles(), new Request({ url: "http://127.0.0.1/p", callback })]),
    [new Crawl(), new Request("http://127.0.0.1/")],
    [new CrawlWithStart(), new Request("http://127.0.0.1/")],
    [new Crawl(), new Request({ url: "http://127.0.0.1/cat/2", rule: 1 })],
    [new Crawl(), new Request({ url: "http://127.0.0.1/x", rule: 5 })],
    [new Shop(), new Request("http://127.0.0.1/start")],
  ];
  for (const [spider, request] of cases) {
    const slow = await outcome(async (take) => {
      for await (const out of runCallback(spider, request, page(request, RULES_HTML + html))) take(out);
    });
    const fast = await outcome((take) => drainCallback(spider, request, page(request, RULES_HTML + html), take));
    assert.deepEqual(fast, slow, `${spider.constructor.name} ${request.url} ${String(request.callback)}`);
  }
});

Deno.test("drainCallback drains a callback that gives no promise before it returns, and throws its error", () => {
  const request = (callback: string) => new Request({ url: "http://127.0.0.1/p", callback });
  const synchronous = ["value", "array", "generator", "nothing", "iterable"];
  for (const callback of synchronous) {
    const taken: unknown[] = [];
    const drained = drainCallback(new Styles(), request(callback), page(request(callback)), (out) => {
      taken.push(out);
      return true;
    });
    assert.equal(drained, true, callback);
    assert.ok(taken.length > 0 || callback === "nothing", callback);
  }
  for (const callback of ["returnsString", "yieldsNumber", "returnsMap", "throws", "throwsMidway"]) {
    assert.throws(() => drainCallback(new Styles(), request(callback), page(request(callback)), () => true), callback);
  }
  // Anything that gives a promise, itself or among its outputs, is drained asynchronously.
  for (const callback of ["asyncGenerator", "promiseOfArray", "promiseOfValue", "arrayOfPromises", "yieldsPromises"]) {
    assert.ok(drainCallback(new Styles(), request(callback), page(request(callback)), () => true) instanceof Promise);
  }
});

Deno.test("drainCallback closes a generator an output stopped, as for...of does, and not one whose next() threw", async () => {
  const log: string[] = [];
  class Closing extends Spider {
    *refused() {
      try {
        yield { n: 1 };
        yield "not an output";
        yield { n: 3 };
      } finally {
        log.push("closed");
      }
    }
    *afterPromise() {
      try {
        yield Promise.resolve({ n: 1 });
        yield { n: 2 };
        yield 7;
      } finally {
        log.push("closed after a promise");
      }
    }
  }
  const request = new Request({ url: "http://127.0.0.1/", callback: "refused" });
  assert.throws(() => drainCallback(new Closing(), request, page(request), () => true), /produced a string/);
  assert.deepEqual(log, ["closed"]);
  const later = new Request({ url: "http://127.0.0.1/", callback: "afterPromise" });
  const taken: unknown[] = [];
  await assert.rejects(
    async () =>
      await drainCallback(new Closing(), later, page(later), (out) => {
        taken.push(out);
        return true;
      }),
    /produced a number/,
  );
  assert.deepEqual(taken, [{ n: 1 }, { n: 2 }]);
  assert.deepEqual(log, ["closed", "closed after a promise"]);
  // A generator that throws from its own body is done; there is nothing to close (and for...of would not).
  const thrown = new Request({ url: "http://127.0.0.1/p", callback: "throwsMidway" });
  assert.throws(() => drainCallback(new Styles(), thrown, page(thrown), () => true), /midway/);
});

Deno.test("drainCallback stops a callback when the taker says so, and its generator is closed", async () => {
  let closed = false;
  class Stoppable extends Spider {
    override *parse() {
      try {
        yield { n: 1 };
        yield { n: 2 };
      } finally {
        closed = true;
      }
    }
  }
  const request = new Request("http://127.0.0.1/");
  const taken: unknown[] = [];
  const finished = await drainCallback(new Stoppable(), request, page(request), (out) => {
    taken.push(out);
    return false;
  });
  assert.equal(finished, false);
  assert.deepEqual(taken, [{ n: 1 }]);
  assert.ok(closed);
});
