/**
 * Rendering in a Chromium that runs elsewhere (`browser_endpoint`): a browser the test starts on a DevTools port,
 * SIGKILLed in the middle of a crawl and started again on the same port. The crawl reconnects, retries the pages that
 * were in flight and finishes with every page; the browser is never closed by the crawl, nor is its own tab. A bad
 * endpoint stops `netweir crawl` at start with one line and exit status 2. About 30 s.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Crawl, type Item, Request, resolveCrawlSettings, Settings, Spider } from "../../mod.ts";
import { createLogger } from "../../src/log.ts";
import { OWN_TAB, startExternalChromium } from "../helpers/external_chromium.ts";
import { runCli } from "../helpers/cli.ts";
import { freePort } from "../helpers/free_port.ts";

const PAGES = 16;

/** Pages whose script writes their title in, so only a browser sees it. */
async function startSite(): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    response.setHeader("content-type", "text/html");
    const id = request.url!.slice(1);
    response.end(`<!doctype html><h1></h1><script>document.querySelector("h1").textContent = "page ${id}"</script>`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

class Rendered extends Spider {
  override name = "rendered";
  constructor(readonly site: string) {
    super();
  }
  override async *start(): AsyncGenerator<Request> {
    // Each page holds its tab 300 ms, so the browser is killed with pages in flight.
    const steps = [{ evaluate: "new Promise((resolve) => setTimeout(() => resolve(1), 300))" }];
    for (let i = 0; i < PAGES; i++) yield new Request({ url: `${this.site}${i}`, render: true, steps });
  }
  override parse(page: { css(selector: string): { text(): string } }) {
    return [{ title: page.css("h1").text() }];
  }
}

/**
 * Crawls the rendered pages of `site` in the browser at `endpoint`, two tabs; `onItems` is told of the items so far as
 * they come. Resolves with the items, the stats and the log lines.
 */
async function crawlIn(site: string, endpoint: string, onItems: (items: Item[]) => void = () => {}) {
  const items: Item[] = [];
  const lines: string[] = [];
  const settings = resolveCrawlSettings({
    spider: new Settings(),
    overrides: new Settings({
      autothrottle: false,
      progress: false,
      retryBackoff: 0.01,
      browserEndpoint: endpoint,
      browserTabs: 2,
      concurrency: 2,
    }),
  });
  const crawl = new Crawl(new Rendered(site), {
    settings,
    log: createLogger("debug", (line) => void lines.push(line)),
    sink: {
      write: (batch) => {
        items.push(...batch);
        onItems(items);
        return Promise.resolve();
      },
      close: () => Promise.resolve(),
    },
  });
  const stats = await crawl.run() as unknown as Record<string, number>;
  return { items, stats, lines };
}

Deno.test("a browser elsewhere SIGKILLed mid-crawl and started again: every page is rendered, the retries counted", async () => {
  const site = await startSite();
  let browser = await startExternalChromium();
  try {
    let restarted: Promise<void> | undefined;
    const { items, stats, lines } = await crawlIn(site.url, browser.http, (items) => {
      // Killed once a few pages are in: the two in its tabs then fail, and the browser comes back a second later
      // (on the same port, with a new profile; close() SIGKILLs it and removes the old one).
      if (items.length >= 4 && restarted === undefined) {
        const port = browser.port;
        restarted = browser.close().then(() => new Promise((resolve) => setTimeout(resolve, 1000)))
          .then(async () => void (browser = await startExternalChromium(port)));
      }
    });
    await restarted;
    const titles = items.map((item) => item.title).sort();
    const expected = Array.from({ length: PAGES }, (_, i) => `page ${i}`).sort();
    assert.deepEqual(titles, expected, "every page rendered once, none missing");
    assert.ok(stats["browser.disconnects"] >= 1, `the lost connection was counted: ${JSON.stringify(stats)}`);
    assert.ok(stats.retries >= 1, "the pages in flight were retried");
    assert.ok(lines.some((line) => /lost the connection to the browser at http:\/\/127\.0\.0\.1:\d+/.test(line)));
    // The crawl ended; the browser it did not start is still running, its own tab still open, none of the crawl's.
    assert.ok(browser.running(), "the browser elsewhere is still running");
    assert.deepEqual(await browser.tabs(), [OWN_TAB]);
  } finally {
    await browser.close();
    site.server.close();
  }
});

Deno.test("a crawl in a browser elsewhere leaves it running with its own tab, and only that tab", async () => {
  const site = await startSite();
  const browser = await startExternalChromium();
  try {
    const { items, stats } = await crawlIn(site.url, browser.ws);
    assert.equal(items.length, PAGES);
    assert.equal(stats["browser.disconnects"] ?? 0, 0);
    assert.ok(browser.running());
    assert.deepEqual(await browser.tabs(), [OWN_TAB]);
  } finally {
    await browser.close();
    site.server.close();
  }
});

Deno.test("a bad browser_endpoint stops the crawl at start: one line, exit status 2", async () => {
  const site = await startSite();
  // Something that answers HTTP, but not as DevTools.
  const notDevTools = createServer((_request, response) => {
    response.statusCode = 404;
    response.end("no such page");
  });
  await new Promise<void>((resolve) => notDevTools.listen(0, "127.0.0.1", resolve));
  const spider = new URL("./fixtures/js_shop_spider.ts", import.meta.url).pathname;
  try {
    const nothing = `http://127.0.0.1:${await freePort()}`;
    const other = `http://127.0.0.1:${(notDevTools.address() as AddressInfo).port}`;
    const cases: Array<[string, RegExp]> = [
      [nothing, /^netweir: browser_endpoint: no browser answers at http:\/\/127\.0\.0\.1:\d+: connection refused$/],
      [other, /^netweir: browser_endpoint: http:\/\/127\.0\.0\.1:\d+ is not a Chrome DevTools endpoint: /],
      [`${other.replace("http", "ws")}/devtools/browser/x`, /^netweir: browser_endpoint: .*ws:\/\/127\.0\.0\.1:\d+/],
      ["ftp://127.0.0.1:1", /^netweir: .*browser_endpoint.*ws:\/\//],
    ];
    for (const [endpoint, message] of cases) {
      const result = await runCli(["crawl", spider, "-a", `site=${site.url}`, "-s", `browser_endpoint=${endpoint}`]);
      assert.equal(result.code, 2, `${endpoint}: ${result.stderr}`);
      const said = result.stderr.trim().split("\n");
      assert.equal(said.length, 1, `one line for ${endpoint}: ${result.stderr}`);
      assert.match(said[0], message);
    }
  } finally {
    notDevTools.close();
    site.server.close();
  }
});
