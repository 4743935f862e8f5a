/**
 * What the engine does with each request a page yields (acceptYielded): a link queued lately is dropped before
 * anything else, the others go through admission, and the counts are the ones the whole way would give.
 */
import assert from "node:assert/strict";
import { Admission } from "../../src/engine/admission.ts";
import type { CrawlContext } from "../../src/engine/context.ts";
import { acceptYielded } from "../../src/engine/page_flow.ts";
import { Stats } from "../../src/engine/stats.ts";
import { createLogger } from "../../src/log.ts";
import { Request } from "../../src/spider/request.ts";

function context(maxDepth: number | null = null, allowedDomains: string[] = []) {
  const stats = new Stats();
  const ctx = {
    admission: new Admission(
      { maxDepth, trapDetection: true, maxUrlLength: 2083, maxPagesPerDomain: null },
      allowedDomains,
    ),
    deltafetch: undefined,
    stats,
    log: createLogger("error"),
  } as unknown as CrawlContext;
  return { ctx, stats };
}

Deno.test("a link yielded a second time is dropped without being counted, as the frontier's filter drops it", () => {
  const { ctx, stats } = context();
  const first = acceptYielded(ctx, new Request({ url: "http://a.test/p#one", depth: 1 }), 0);
  assert.equal(first?.url, "http://a.test/p#one");
  assert.equal(acceptYielded(ctx, new Request({ url: "http://a.test/p#two", depth: 1 }), 0), undefined);
  assert.equal(acceptYielded(ctx, new Request({ url: "http://a.test/p", depth: 5 }), 4), undefined);
  assert.deepEqual(stats.toJSON({}).dropped ?? {}, {});
  const again = acceptYielded(ctx, new Request({ url: "http://a.test/p", dontFilter: true }), 0);
  assert.equal(again?.depth, 1, "dontFilter goes through, one level below the page");
});

Deno.test("a refused link is refused and counted each time it is yielded, never taken for queued", () => {
  const { ctx, stats } = context(1, ["a.test"]);
  for (let i = 0; i < 2; i++) {
    assert.equal(acceptYielded(ctx, new Request({ url: "http://b.test/x" }), 0), undefined);
    assert.equal(acceptYielded(ctx, new Request({ url: "http://a.test/deep" }), 1), undefined);
    assert.equal(acceptYielded(ctx, new Request({ url: "http://a.test/a/a/a" }), 0), undefined);
  }
  assert.deepEqual(stats.toJSON({}).dropped, { offsite: 2, depth: 2, trap: 2 });
  // Queued at depth 1, then yielded again from a page at depth 1: over max_depth, counted as such.
  assert.ok(acceptYielded(ctx, new Request({ url: "http://a.test/ok" }), 0));
  assert.equal(acceptYielded(ctx, new Request({ url: "http://a.test/ok" }), 1), undefined);
  assert.equal((stats.toJSON({}).dropped as Record<string, number>).depth, 3);
});
