/**
 * Requests waiting for a busy host do not keep other hosts' requests out: the room a process leases into counts
 * them as blocked, not as about to start (src/engine/lease_room.ts). Under a second, but for the crawl below, which
 * takes up to a second (the engine's loop looks again at least once a second while nothing finishes).
 */
import assert from "node:assert/strict";
import { type FetchedResponse, makeResponse, type Page, Request, Spider } from "../../mod.ts";
import { leaseRoom } from "../../src/engine/lease_room.ts";
import { crawlItems } from "./_crawl.ts";

Deno.test("blocked waiting requests leave room for others, while all that wait stay at most concurrency", () => {
  // per_domain requests in flight to each of 250 hosts, as many waiting behind them: nothing waiting can start.
  assert.equal(leaseRoom({ concurrency: 1000, inFlight: 500, waiting: 500, blocked: 500, finishing: 0 }), 500);
  // Counted as about to start, they left none: half the crawl's slots could never be used.
  assert.equal(leaseRoom({ concurrency: 1000, inFlight: 500, waiting: 500, blocked: 0, finishing: 0 }), 0);
  // What can start counts in full; and however blocked, no more than `concurrency` wait here.
  assert.equal(leaseRoom({ concurrency: 1000, inFlight: 100, waiting: 300, blocked: 100, finishing: 0 }), 700);
  assert.equal(leaseRoom({ concurrency: 1000, inFlight: 0, waiting: 1000, blocked: 1000, finishing: 0 }), 0);
  // Finishes on their way count only past `concurrency` of them, as before.
  assert.equal(leaseRoom({ concurrency: 10, inFlight: 5, waiting: 0, blocked: 0, finishing: 12 }), 3);
});

const BODY = `<html><head><title>t</title></head><body><p>page</p></body></html>`;

/**
 * Three pages on host a, then one on host b, one request at a time to each host and two in all. Host a's answers
 * are held until host b's request has started (or five seconds have passed, so the crawl ends either way): how
 * many of a's pages had been answered by then is what the test reads. Leased together with a's first page, a's
 * second waits for its slot; counted as about to start, it left no room to lease b's request until a's first page
 * was answered.
 */
class BusyHost extends Spider {
  /** How many of host a's pages had been answered when host b's request started (undefined: it never did). */
  aAnsweredWhenBStarted: number | undefined;
  #aAnswered = 0;
  #releaseA: () => void = () => {};
  readonly #bSeen = new Promise<void>((resolve) => this.#releaseA = resolve);

  override middlewares = [{
    processRequest: async (request: Request): Promise<FetchedResponse> => {
      if (request.host.startsWith("127.0.0.2")) {
        this.aAnsweredWhenBStarted = this.#aAnswered;
        this.#releaseA();
      } else {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([this.#bSeen, new Promise((resolve) => timer = setTimeout(resolve, 5000))]);
        clearTimeout(timer);
        this.#aAnswered++;
      }
      return makeResponse(request, { body: BODY, headers: { "content-type": "text/html" } });
    },
  }];

  override async *start() {
    for (const n of [1, 2, 3]) yield new Request({ url: `http://127.0.0.1:9/a/${n}` });
    yield new Request({ url: "http://127.0.0.2:9/b/1" });
  }

  override parse(page: Page) {
    return { url: page.url };
  }
}

Deno.test("a request for another host starts while the busy host's next requests wait for its slot", async () => {
  const spider = new BusyHost();
  const { items } = await crawlItems(spider, {
    obey_robots_txt: false,
    concurrency: 2,
    per_domain: 1,
    min_delay: 0,
  });
  assert.equal(items.length, 4);
  assert.equal(spider.aAnsweredWhenBStarted, 0, "host b's request waited for host a's first page to be answered");
});
