/**
 * The callback workers' pool (src/engine/worker_pool.ts) on its own: pages that wait while the worker is busy go to it
 * in one message, their requests come back as the callback made them, and a worker that dies in the middle of such a
 * batch fails only the page it was on; the pages after it are run by the worker that replaces it.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { WorkerPool } from "../../src/engine/worker_pool.ts";
import { makeResponse } from "../../src/spider/response.ts";
import { Request } from "../../src/spider/request.ts";
import type { Spider } from "../../src/spider/spider.ts";
import type { Item, Logger } from "../../src/spider/types.ts";
import { withTempDir } from "../cli/_run.ts";
import { recordingLogger } from "../output/temp_dir.ts";

const MOD = JSON.stringify(new URL("../../mod.ts", import.meta.url).href);

/**
 * Each page gives an item and follows two links, one plain and one with meta; a page named crash kills its worker,
 * one named hang never ends, slow takes 300 ms, and fn gives an item with a function in it.
 */
const SPIDER = `import { type Page, Spider } from ${MOD};
export class Pages extends Spider {
  override async *parse(page: Page) {
    if (page.url.endsWith("/hang")) await new Promise(() => {});
    if (page.url.endsWith("/slow")) await new Promise((resolve) => setTimeout(resolve, 300));
    if (page.url.endsWith("/fn")) {
      yield { url: page.url, format: () => "no function crosses to the crawl's thread" };
      return;
    }
    if (page.url.endsWith("/crash")) {
      setTimeout(() => { throw new Error("the worker goes down"); }, 0);
      await new Promise(() => {});
    }
    yield { url: page.url };
    yield page.follow("./next.html", { callback: this.parseNext });
    yield page.follow("/other", { meta: { from: page.url } });
  }
  parseNext() {
    return null;
  }
}
`;

type Run = (path: string, depth?: number) => Promise<Array<Item | Request>>;

/**
 * A pool of one worker running the spider above, for `body`, closed after it; `run(path, depth)` hands it the page
 * http://127.0.0.1:9/d/PATH at that depth (0 unless given). `maxDepth` is the crawl's max_depth.
 */
async function withPool(
  body: (pool: WorkerPool, run: Run) => Promise<void>,
  { log = recordingLogger(), maxDepth = null }: { log?: Logger; maxDepth?: number | null } = {},
): Promise<void> {
  await withTempDir(async (dir) => {
    const file = join(dir, "pages.ts");
    await writeFile(file, SPIDER);
    const { Pages } = await import(pathToFileURL(file).href) as { Pages: new () => Spider };
    const pool = await WorkerPool.start(1, new Pages(), { file, args: [] }, log, maxDepth);
    const run: Run = (path, depth = 0) => {
      const request = new Request({ url: `http://127.0.0.1:9/d/${path}`, depth });
      return pool.run(request, makeResponse(request, { body: "<p>page</p>" }));
    };
    try {
      await body(pool, run);
    } finally {
      pool.close();
    }
  });
}

/** What `promise` settles to, or "still waiting" if it has not after 10 s. */
async function within10s<T>(promise: Promise<T>): Promise<T | "still waiting"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<"still waiting">((resolve) => timer = setTimeout(() => resolve("still waiting"), 10_000)),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The URLs of the requests among a page's outputs. */
function requestUrls(outputs: Array<Item | Request>): string[] {
  return outputs.filter((output) => output instanceof Request).map((request) => (request as Request).url);
}

Deno.test("pages that waited go to the worker together; one that kills it fails alone and the rest are run", async () => {
  const log = recordingLogger();
  await withPool(async (_pool, run) => {
    // The first goes at once; the other four wait for it, and go as one batch, the crash second in it.
    const outcomes = await Promise.allSettled(["a", "b", "crash", "c", "d"].map((path) => run(path, 2)));
    assert.deepEqual(outcomes.map((outcome) => outcome.status), [
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
    ]);
    assert.match(String((outcomes[2] as PromiseRejectedResult).reason), /its callback worker died/);
    const warnings = log.lines.filter((line) => line.level === "warning").map((line) => line.message);
    assert.equal(warnings.length, 1, warnings.join("\n"));

    const outputs = (outcomes[3] as PromiseFulfilledResult<Array<Item | Request>>).value;
    assert.deepEqual(outputs[0], { url: "http://127.0.0.1:9/d/c" });
    const [plain, withMeta] = outputs.slice(1) as Request[];
    assert.ok(plain instanceof Request && withMeta instanceof Request);
    assert.deepEqual(
      [plain.url, plain.host, plain.depth, plain.callback],
      ["http://127.0.0.1:9/d/next.html", "127.0.0.1", 3, "parseNext"],
    );
    assert.deepEqual(
      [withMeta.url, withMeta.depth, withMeta.meta],
      ["http://127.0.0.1:9/other", 3, { from: "http://127.0.0.1:9/d/c" }],
    );
  }, { log });
});

Deno.test("closing the pool fails the pages a worker has not answered and those still waiting, rather than leave them", async () => {
  await withPool(async (pool, run) => {
    // The worker is held on the first page; the other two wait for it.
    const settled = Promise.allSettled(["hang", "x", "y"].map((path) => run(path)));
    await new Promise((resolve) => setTimeout(resolve, 200));
    pool.close();
    const outcome = await within10s(settled);
    assert.notEqual(outcome, "still waiting");
    assert.deepEqual((outcome as PromiseSettledResult<unknown>[]).map((each) => each.status), [
      "rejected",
      "rejected",
      "rejected",
    ]);
  });
});

Deno.test("a link the crawl has queued is dropped in the worker, unless the crawl would refuse it as too deep", async () => {
  // max_depth 3: links of a page at depth 2 are within it, those of a page at depth 3 are not.
  await withPool(async (pool, run) => {
    // Nothing queued yet: both links cross.
    assert.deepEqual(requestUrls(await run("a", 2)), ["http://127.0.0.1:9/d/next.html", "http://127.0.0.1:9/other"]);
    // Queued by the crawl (the key is the URL without its fragment): a repeat of it stays in the worker, whatever
    // its callback or meta, as the crawl would drop it on arrival. The other link still crosses.
    pool.noteQueued("http://127.0.0.1:9/other");
    assert.deepEqual(requestUrls(await run("b", 2)), ["http://127.0.0.1:9/d/next.html"]);
    pool.noteQueued("http://127.0.0.1:9/d/next.html");
    assert.deepEqual(requestUrls(await run("c", 2)), []);
    // One level deeper its links are past max_depth: they cross, for the crawl to refuse and count them.
    assert.deepEqual(requestUrls(await run("d", 3)), ["http://127.0.0.1:9/d/next.html", "http://127.0.0.1:9/other"]);
    // Items are never dropped.
    assert.deepEqual((await run("e", 2))[0], { url: "http://127.0.0.1:9/d/e" });
  }, { maxDepth: 3 });
});

Deno.test("one page's outputs that cannot cross fail that page alone; a callback that waits does not hold back others", async () => {
  await withPool(async (_pool, run) => {
    // slow holds the worker; a, fn and b wait for it and go as one batch, whose outcomes come back together.
    const outcomes = await Promise.allSettled(["slow", "a", "fn", "b"].map((path) => run(path)));
    assert.deepEqual(outcomes.map((outcome) => outcome.status), ["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    assert.match(String((outcomes[2] as PromiseRejectedResult).reason), /its outputs cannot be sent to the crawl/);
    assert.deepEqual((outcomes[3] as PromiseFulfilledResult<Array<Item | Request>>).value[0], {
      url: "http://127.0.0.1:9/d/b",
    });
    // c is done before hang begins, in the same batch; hang never ends, and c's outcome is not held for it.
    const first = run("slow");
    const c = run("c");
    void run("hang").catch(() => {});
    await first;
    assert.notEqual(await within10s(c), "still waiting", "a page's outcome waited for a callback that never ends");
  });
});

Deno.test("pages given to a worker while its last page waits run after it, and each outcome goes to its own page", async () => {
  await withPool(async (_pool, run) => {
    // slow is the worker's only page, so its last: a and b are handed over while it waits, and must wait for it.
    const slow = run("slow");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const order: string[] = [];
    const outputs = await Promise.all(
      [slow, run("a"), run("b")].map((running, index) =>
        running.then((value) => (order.push(["slow", "a", "b"][index]), value))
      ),
    );
    assert.deepEqual(outputs.map((each) => each[0]), [
      { url: "http://127.0.0.1:9/d/slow" },
      { url: "http://127.0.0.1:9/d/a" },
      { url: "http://127.0.0.1:9/d/b" },
    ]);
    assert.deepEqual(order, ["slow", "a", "b"]);
  });
});

Deno.test("a worker busy while the crawl queues many keys is told the latest ones when it is free", async () => {
  await withPool(async (pool, run) => {
    // While the worker is on slow, the crawl queues far more keys than a worker keeps (two generations of 16,384);
    // what it is told is bounded, and holds the latest: /other was queued last, next.html long before.
    const slow = run("slow");
    await new Promise((resolve) => setTimeout(resolve, 50));
    pool.noteQueued("http://127.0.0.1:9/d/next.html");
    for (let i = 0; i < 100_000; i++) pool.noteQueued(`http://127.0.0.1:9/k/${i}`);
    pool.noteQueued("http://127.0.0.1:9/other");
    await slow;
    assert.deepEqual(requestUrls(await run("a")), ["http://127.0.0.1:9/d/next.html"]);
  });
});
