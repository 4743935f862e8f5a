/**
 * The robots_txt_errors setting in a crawl: a site whose robots.txt answers 503 is crawled by default (as Scrapy
 * does), and not at all with the RFC's rule.
 */
import assert from "node:assert/strict";
import { Crawl, type Page, Request, resolveCrawlSettings, Settings, Spider } from "../../mod.ts";
import { createLogger } from "../../src/log.ts";

class TwoPages extends Spider {
  constructor(readonly origin: string) {
    super();
  }
  override async *start() {
    yield new Request(`${this.origin}/a`);
    yield new Request(`${this.origin}/b`);
  }
  override parse(page: Page) {
    return { url: page.url };
  }
}

/** A site whose /robots.txt answers 503 and whose pages answer 200, counting what it was asked for. */
function troubledSite() {
  const asked: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const path = new URL(request.url).pathname;
    asked.push(path);
    if (path === "/robots.txt") return new Response("down for maintenance", { status: 503 });
    return new Response(`<p>${path}</p>`, { headers: { "content-type": "text/html" } });
  });
  return { origin: `http://127.0.0.1:${server.addr.port}`, asked, close: () => server.shutdown() };
}

async function crawlWith(origin: string, errors?: string) {
  const settings = resolveCrawlSettings({
    overrides: new Settings({
      minDelay: 0,
      autothrottle: false,
      retries: 0,
      progress: false,
      ...(errors === undefined ? {} : { robotsTxtErrors: errors }),
    }),
  });
  const items: unknown[] = [];
  const crawl = new Crawl(new TwoPages(origin), {
    settings,
    log: createLogger("error", () => {}),
    sink: { write: (batch) => Promise.resolve(void items.push(...batch)), close: () => Promise.resolve() },
  });
  const stats = await crawl.run();
  return { items, dropped: (stats.dropped ?? {}) as Record<string, number> };
}

Deno.test("a robots.txt answering 503 lets the crawl through by default, and stops it with robots_txt_errors=disallow", async () => {
  const site = troubledSite();
  try {
    const lenient = await crawlWith(site.origin);
    assert.equal(lenient.items.length, 2);
    assert.deepEqual(site.asked.filter((path) => path !== "/robots.txt").sort(), ["/a", "/b"]);
    site.asked.length = 0;
    const strict = await crawlWith(site.origin, "disallow");
    assert.equal(strict.items.length, 0);
    assert.equal(strict.dropped.robots, 2);
    assert.deepEqual(site.asked.filter((path) => path !== "/robots.txt"), [], "no page was fetched");
  } finally {
    await site.close();
  }
});

Deno.test("robots_txt_errors takes allow or disallow only", () => {
  assert.throws(
    () => resolveCrawlSettings({ overrides: new Settings({ robotsTxtErrors: "maybe" }) }),
    /robots_txt_errors/,
  );
});
