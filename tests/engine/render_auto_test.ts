/**
 * How `render: "auto"` tells kinds of page apart and decides, step by step, without a browser: the decisions are
 * plain bookkeeping over verdicts, which tests/browser/render_auto_test.ts then checks against Chromium and a real
 * site. Well under a second.
 */
import assert from "node:assert/strict";
import { Request, Rule, Spider } from "../../mod.ts";
import { type AutoPlan, pageKind, RenderAuto } from "../../src/engine/render_auto.ts";
import { compareRuns } from "../../src/engine/render_compare.ts";
import { Stats } from "../../src/engine/stats.ts";
import { createLogger } from "../../src/log.ts";
import { rendersIn } from "../../src/spider/steps.ts";

class Shop extends Spider {
  override rules = [new Rule({ allow: "/tag/", render: "auto" })];
  product() {}
}

const spider = new Shop();

/** A plan made at once (not waiting on a sample), without its release. */
function now(planned: ReturnType<RenderAuto["plan"]>) {
  assert.ok(!(planned instanceof Promise), "the plan waits");
  if (planned === undefined) return undefined;
  const { release: _release, ...plan } = planned;
  return plan;
}

function auto(settings: Partial<{ render: string | null; renderAutoSample: number; renderAutoRecheck: number }> = {}) {
  const stats = new Stats();
  const lines: string[] = [];
  const decide = new RenderAuto(
    { render: null, renderAutoSample: 2, renderAutoRecheck: 0.25, ...settings },
    spider,
    stats,
    createLogger("info", (line) => void lines.push(line)),
    (request) => rendersIn(request) || request.host === "always.test",
  );
  return { decide, stats, lines };
}

Deno.test("a kind is the rule or callback, the host and the path's shape; meta.render_kind names one outright", () => {
  const kind = (init: ConstructorParameters<typeof Request>[0]) => pageKind(spider, new Request(init));
  assert.equal(
    kind({ url: "http://shop.test:8080/product/17?ref=a", callback: spider.product }),
    "product shop.test:8080/product/*",
  );
  assert.equal(kind("http://shop.test/catalogue/a-book_12/index.html"), "parse shop.test/catalogue/*/*");
  assert.equal(kind("http://shop.test/dune-by-herbert"), "parse shop.test/*");
  assert.equal(kind("http://shop.test/"), "parse shop.test/");
  assert.equal(kind({ url: "http://shop.test/tag/sf", rule: 0 }), "rule 0 shop.test/tag/*");
  assert.equal(kind({ url: "http://shop.test/x/1", meta: { render_kind: "detail" } }), "detail");
});

Deno.test("a sampled kind that agrees goes plain, one page in 1/recheck is compared again, and a difference makes it render for good", () => {
  const { decide, stats, lines } = auto();
  const request = new Request({ url: "http://shop.test/product/1", render: "auto", callback: "product" });
  const kind = "product shop.test/product/*";
  const first = decide.plan(request) as AutoPlan;
  assert.deepEqual(now(first), { kind, render: true, compare: true });
  decide.settle(kind, { same: true }, request.url);
  first.release();
  const second = decide.plan(request) as AutoPlan;
  assert.deepEqual(now(second), { kind, render: true, compare: true });
  decide.settle(kind, { inconclusive: "no document" }, request.url);
  second.release();
  assert.equal(now(decide.plan(request))?.compare, true, "an inconclusive comparison does not count");
  decide.settle(kind, { same: true }, request.url);
  assert.equal(lines.filter((line) => line.includes("plain HTTP from now on")).length, 1);
  // Plain now, with every 4th page (recheck 0.25) rendered and compared.
  const plans = Array.from({ length: 8 }, () => now(decide.plan(request)));
  assert.deepEqual(plans.map((plan) => plan?.render), [false, false, false, true, false, false, false, true]);
  decide.settle(kind, { same: true }, request.url);
  assert.equal(now(decide.plan(request))?.render, false);
  decide.settle(kind, { same: false, detail: "items: 1 rendered, 0 plain" }, request.url);
  assert.deepEqual(now(decide.plan(request)), { kind, render: true, compare: false });
  assert.equal(stats.get("render.auto.switched_back"), 1);
  assert.equal(stats.get(`render.auto.${kind}.differed`), 1);
  assert.equal(stats.get(`render.auto.${kind}.compared`), 4);
  assert.equal(stats.get(`render.auto.${kind}.inconclusive`), 1);
  assert.match(lines.at(-1)!, /renders from now on: .* re-checked differs .*items: 1 rendered, 0 plain/);
});

Deno.test("render: true, steps, a rendering host and plain requests without the setting are not auto; the setting makes plain ones auto", () => {
  const { decide } = auto();
  assert.equal(now(decide.plan(new Request({ url: "http://shop.test/a/1", render: true }))), undefined);
  assert.equal(
    now(decide.plan(new Request({ url: "http://shop.test/a/1", render: "auto", steps: [{ click: "#x" }] }))),
    undefined,
  );
  assert.equal(now(decide.plan(new Request({ url: "http://always.test/a/1", render: "auto" }))), undefined);
  assert.equal(now(decide.plan(new Request("http://shop.test/a/1"))), undefined);
  const setting = auto({ render: "auto" }).decide;
  assert.equal(now(setting.plan(new Request("http://shop.test/a/1")))?.compare, true);
  assert.equal(now(setting.plan(new Request({ url: "http://shop.test/a/1", steps: [{ click: "#x" }] }))), undefined);
});

Deno.test("with recheck 0 a plain kind is never rendered again", () => {
  const { decide } = auto({ renderAutoSample: 1, renderAutoRecheck: 0 });
  const request = new Request({ url: "http://shop.test/a/1", render: "auto" });
  decide.plan(request);
  decide.settle("parse shop.test/a/*", { same: true }, request.url);
  assert.ok(Array.from({ length: 100 }, () => now(decide.plan(request))).every((plan) => plan?.render === false));
});

Deno.test("while a kind is sampled, pages beyond what the sample still needs wait for its verdict, then go as it says", async () => {
  const { decide } = auto({ renderAutoSample: 2, renderAutoRecheck: 0 });
  const request = new Request({ url: "http://shop.test/a/1", render: "auto" });
  const kind = "parse shop.test/a/*";
  const [one, two] = [decide.plan(request) as AutoPlan, decide.plan(request) as AutoPlan];
  assert.ok(one.compare && two.compare);
  const waiting = [decide.plan(request), decide.plan(request)];
  assert.ok(waiting.every((plan) => plan instanceof Promise), "the third and fourth page wait");
  // A sample that ends without a verdict (a failed download) lets one waiting page be a sample in its place.
  one.release();
  const replacement = await waiting[0] as AutoPlan;
  assert.equal(replacement.compare, true);
  assert.ok(decide.plan(request) instanceof Promise, "still two samples out");
  for (const sample of [two, replacement]) {
    decide.settle(kind, { same: true }, request.url);
    sample.release();
  }
  assert.deepEqual(now(await waiting[1]), { kind, render: false, compare: false });
});

Deno.test("a page waiting on a sample goes on when the crawl stops", async () => {
  const { decide } = auto({ renderAutoSample: 1 });
  const request = new Request({ url: "http://shop.test/a/1", render: "auto" });
  decide.plan(request);
  const stop = new AbortController();
  const waiting = decide.plan(request, stop.signal);
  assert.ok(waiting instanceof Promise);
  stop.abort();
  assert.equal((await waiting).render, true);
});

Deno.test("two runs compare equal when their items match whatever the key order and their links match as a set", () => {
  const link = (url: string, callback?: string) => new Request({ url, callback });
  const same = compareRuns(
    { outputs: [{ a: 1, b: [1, { y: 2, x: 1 }] }, link("http://s.test/1"), link("http://s.test/1")], error: undefined },
    { outputs: [link("http://s.test/1"), { b: [1, { x: 1, y: 2 }], a: 1 }], error: undefined },
  );
  assert.deepEqual(same, { same: true });
  const fewer = compareRuns({ outputs: [{ a: 1 }, { a: 2 }], error: undefined }, {
    outputs: [{ a: 1 }],
    error: undefined,
  });
  assert.deepEqual(fewer, { same: false, detail: "items: 2 rendered, 1 plain" });
  const other = compareRuns(
    { outputs: [link("http://s.test/1", "product")], error: undefined },
    { outputs: [link("http://s.test/1", "parse")], error: undefined },
  );
  assert.equal("same" in other && other.same, false);
  const failed = compareRuns({ outputs: [], error: undefined }, { outputs: [], error: new TypeError("no h1") });
  assert.deepEqual(failed, { same: false, detail: "the callback failed on the plain page: no h1" });
});

Deno.test('render takes true, false or "auto" on a Request and a Rule, and nothing else', () => {
  assert.equal(new Request({ url: "http://s.test/", render: "auto" }).render, "auto");
  assert.equal(new Rule({ render: "auto" }).render, "auto");
  const bad = { url: "http://s.test/", render: "sometimes" } as unknown as ConstructorParameters<typeof Request>[0];
  assert.throws(() => new Request(bad), { name: "TypeError", message: /render must be true, false or "auto"/ });
  assert.throws(() => new Rule({ render: "yes" as unknown as boolean }), { name: "TypeError", message: /render/ });
});
