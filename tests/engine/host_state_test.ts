/**
 * A crawl over many hosts keeps per-host state for the hosts it is working on, not for every host it has seen, and
 * holds at most `concurrency` busy and MAX_IDLE idle connections. Real: one HTTP server on 0.0.0.0 answers for 800
 * addresses of 127.0.0.0/8 (Linux routes all of it to lo; the server refuses any other peer), the crawl runs in this
 * process, and its connections are counted twice, by the crawl's own count and by the kernel's table of TCP sockets
 * (/proc/net/tcp: established sockets whose remote port is the server's are the crawl's). About 3 s: 1,600 requests.
 */
import assert from "node:assert/strict";
import { Crawl, type HostState, type Item, Request, resolveCrawlSettings, Settings, Spider } from "../../mod.ts";
import { createLogger } from "../../src/log.ts";
import { MAX_IDLE } from "../../src/runtime/h1/client.ts";
import { establishedTo } from "../helpers/tcp_sockets.ts";

const HOSTS = 800;
const CONCURRENCY = 32;

/** Host i's address: 127.3.x.y, never .0 or .255. */
function hostAddress(i: number): string {
  return `127.3.${Math.floor(i / 250)}.${(i % 250) + 1}`;
}

/** One page on each host; `sample` is called on every page, while the crawl is at work. */
class ManyHosts extends Spider {
  constructor(private readonly port: number, private readonly sample: () => Promise<void>) {
    super();
  }
  override async *start() {
    for (let i = 0; i < HOSTS; i++) yield new Request({ url: `http://${hostAddress(i)}:${this.port}/` });
  }
  override async parse() {
    await this.sample();
    return { ok: true };
  }
}

Deno.test("a crawl over 800 hosts keeps slots and connections only for the hosts it is working on", async () => {
  const server = Deno.serve({ hostname: "0.0.0.0", port: 0, onListen() {} }, async (request, info) => {
    if (!(info.remoteAddr as Deno.NetAddr).hostname.startsWith("127.")) return new Response("", { status: 403 });
    // Held a little, so requests to many hosts are in flight at once.
    await new Promise((done) => setTimeout(done, 10));
    if (new URL(request.url).pathname === "/robots.txt") return new Response("User-agent: *\nDisallow: /private/\n");
    return new Response("<html><body>a host</body></html>", { headers: { "content-type": "text/html" } });
  });
  const port = server.addr.port;
  try {
    const settings = resolveCrawlSettings({
      overrides: new Settings({
        concurrency: CONCURRENCY,
        perDomain: 2,
        autothrottle: false,
        retries: 0,
        progress: false,
        logLevel: "error",
      }),
    });
    const items: Item[] = [];
    let most: (HostState & { sockets: number }) | undefined;
    let pages = 0;
    // On every page the crawl's own counts; on every 20th the kernel's (reading its table takes a while).
    const sample = async () => {
      const state = { ...crawl.hostState(), sockets: pages++ % 20 === 0 ? await establishedTo(port) : 0 };
      most ??= state;
      for (const key of Object.keys(most) as Array<keyof typeof most>) most[key] = Math.max(most[key], state[key]);
    };
    const crawl = new Crawl(new ManyHosts(port, sample), {
      settings,
      log: createLogger("error"),
      sink: { write: (batch) => Promise.resolve(void items.push(...batch)), close: () => Promise.resolve() },
    });
    const stats = await crawl.run();
    const end = crawl.hostState();

    assert.equal(items.length, HOSTS, JSON.stringify(stats));
    assert.ok(most);
    // Every host had a robots.txt and a page on a kept connection: without the bound, about one idle connection a
    // host would be left (800), as a keep-alive pool without a global cap leaves them.
    assert.ok(most.idleConnections <= MAX_IDLE, `${most.idleConnections} idle connections at most`);
    assert.ok(most.idleConnections > CONCURRENCY, `${most.idleConnections}: the pool did keep connections`);
    assert.ok(most.busyConnections <= CONCURRENCY, `${most.busyConnections} busy connections at most`);
    assert.ok(
      most.sockets <= CONCURRENCY + MAX_IDLE,
      `the kernel counted ${most.sockets} connections at most, over ${CONCURRENCY} busy + ${MAX_IDLE} idle`,
    );
    assert.ok(most.connectionOrigins <= MAX_IDLE, `${most.connectionOrigins} origins with idle connections`);
    // Slots only for hosts with requests in flight (no delay here: a slot goes as its last request finishes).
    assert.ok(most.slots <= CONCURRENCY, `${most.slots} slots at most`);
    assert.ok(most.slots > 1, `${most.slots}: requests to several hosts were in flight at once`);
    assert.ok(most.waitingHosts <= CONCURRENCY, `${most.waitingHosts} hosts with requests waiting at most`);
    assert.equal(end.slots, 0, "no slot left after the crawl");
    assert.equal(end.waitingHosts, 0);
    // robots.txt is what stays (an origin unused for an hour, or past 16 M characters, is forgotten: robots_test.ts).
    assert.equal(end.robotsKnown, HOSTS);
    // The crawl's end closed its connections.
    assert.deepEqual([end.idleConnections, end.busyConnections], [0, 0]);
    assert.equal(await establishedTo(port), 0, "no connection of the crawl is still established");
  } finally {
    await server.shutdown();
  }
});
