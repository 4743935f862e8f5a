/**
 * Slots freed together are refilled together: the pages that finish in one turn of the event loop wake the engine's
 * loop once, and one lease takes their successors. Woken once per page, the loop leased one request at a time, which
 * cost a Node crawl a quarter of its speed (docs/design/engine.md, "A wake at the end of the turn").
 */
import assert from "node:assert/strict";
import { type FetchedResponse, makeResponse, type Page, Request, Spider } from "../../mod.ts";
import { MemoryFrontier } from "../../src/queue/memory.ts";
import type { Lease, LeaseOptions } from "../../src/queue/frontier.ts";
import { crawlItems } from "./_crawl.ts";

/** A memory frontier that counts the leases asked of it. */
class CountingFrontier extends MemoryFrontier {
  leaseCalls = 0;
  override lease(max: number, options?: LeaseOptions): Promise<Lease[]> {
    this.leaseCalls++;
    return super.lease(max, options);
  }
}

const BODY = `<html><body><h1>A page</h1>${"<p>filler text</p>".repeat(200)}</body></html>`;

/**
 * Start requests for `pages` pages, each answered by a middleware from a timer of its own: the answers to the requests
 * in flight come due together, and each is handed over in its own task, as Node hands over each socket's bytes.
 */
class TimedPages extends Spider {
  override middlewares = [{
    processRequest: (request: Request) =>
      new Promise<FetchedResponse>((resolve) =>
        setTimeout(() => resolve(makeResponse(request, { body: BODY, headers: { "content-type": "text/html" } })), 2)
      ),
  }];
  constructor(readonly pages: number) {
    super();
  }
  override async *start() {
    for (let i = 0; i < this.pages; i++) yield new Request({ url: `http://127.0.0.1:9/p/${i}` });
  }
  override parse(page: Page) {
    return { url: page.url, title: page.css("h1").text() };
  }
}

Deno.test("pages that finish together are refilled by one lease, not one lease each", async () => {
  const PAGES = 600;
  const frontier = new CountingFrontier();
  const { items, stats } = await crawlItems(
    new TimedPages(PAGES),
    { obey_robots_txt: false, concurrency: 32, per_domain: 32, min_delay: 0 },
    {},
    frontier,
  );
  assert.equal(stats.pages, PAGES);
  assert.equal(items.length, PAGES);
  // One lease per page would be about 600; refilled a turn's worth at a time it is a small fraction of that.
  assert.ok(frontier.leaseCalls < PAGES / 4, `${frontier.leaseCalls} leases for ${PAGES} pages`);
});
