/**
 * Rendered requests with the `sessions` setting: each session renders in a browser context of its own, so a cookie a
 * page's script sets stays with its session, the page's own requests send the session's user agent, and a retired
 * session's next page starts in a fresh context. Real Chromium; about 17 s (two Chromium starts).
 */
import assert from "node:assert/strict";
import { type Page, Request, Spider } from "../../mod.ts";
import { crawl } from "../helpers/crawl_in_process.ts";
import { startSessionSite } from "../helpers/session_site.ts";

/** Two rendered pages one after the other in each of `chains` chains; the second chain's first page retires. */
class Rendered extends Spider {
  site = "";
  retireOn = "";
  override async *start() {
    for (const chain of ["a", "b"]) {
      yield new Request({
        url: `${this.site}rendered/${chain}1`,
        render: true,
        steps: [{ wait_for: "#js:not(:empty)" }],
      });
    }
  }
  override *parse(page: Page) {
    const path = new URL(page.url).pathname;
    yield { path, sid: page.css("#sid").text(), js: page.css("#js").text(), session: page.session?.id };
    if (path === this.retireOn) page.session?.retire();
    if (path.endsWith("1")) {
      yield page.follow(path.replace(/1$/, "2"), { render: true, steps: [{ wait_for: "#js:not(:empty)" }] });
    }
  }
}

Deno.test("each session renders in its own browser context, with its own cookies and user agent", async () => {
  const site = await startSessionSite();
  try {
    const spider = Object.assign(new Rendered(), { site: site.url });
    const { items, stats } = await crawl(spider, {
      obeyRobotsTxt: false,
      concurrency: 2,
      browserTabs: 2,
      sessions: 2,
      sessionUserAgents: ["agent-a", "agent-b"],
      // Images load (the default leaves them out): the page's image is its own request, made by Chromium.
      browserBlock: [],
      browserPath: "/usr/bin/chromium",
    });
    assert.equal(items.length, 4, JSON.stringify(items));
    const byChain = Map.groupBy(items, (item) => String(item.path).slice(-2, -1));
    const jsCookies = new Set<unknown>();
    for (const [chain, pages] of byChain) {
      assert.equal(pages.length, 2);
      // The script's cookie of the first page is the one the second page finds: the same context kept it.
      assert.equal(pages[0].js, pages[1].js, `chain ${chain}`);
      assert.equal(pages[0].sid, pages[1].sid);
      assert.equal(pages[0].session, pages[1].session);
      jsCookies.add(pages[0].js);
    }
    assert.equal(jsCookies.size, 2, "two contexts, two script cookies");
    assert.equal(site.logins(), 2);
    // The page's own request (its image) went with the session's user agent and cookie, from Chromium.
    const pixels = site.hits.filter((hit) => hit.path === "/pixel");
    assert.ok(pixels.length >= 2);
    for (const pixel of pixels) {
      const documents = site.hits.filter((hit) => hit.sid === pixel.sid && hit.path.startsWith("/rendered/"));
      assert.equal(pixel.userAgent, documents[0].userAgent, "the session's user agent");
      assert.match(pixel.userAgent, /^agent-[ab]$/);
    }
    assert.equal(stats["sessions.used"], 2);
  } finally {
    await site.close();
  }
});

Deno.test("a retired session's next page renders in a new context, without the old one's cookies", async () => {
  const site = await startSessionSite();
  try {
    const spider = Object.assign(new Rendered(), { site: site.url, retireOn: "/rendered/a1" });
    const { items, stats } = await crawl(spider, {
      obeyRobotsTxt: false,
      concurrency: 1,
      sessions: 1,
      browserPath: "/usr/bin/chromium",
    });
    const a = items.filter((item) => String(item.path).startsWith("/rendered/a"));
    assert.equal(a.length, 2);
    assert.notEqual(a[0].session, a[1].session);
    assert.notEqual(a[0].js, a[1].js, "the script's cookie went with the retired context");
    assert.notEqual(a[0].sid, a[1].sid, "and the login with the retired session's jar");
    assert.equal(stats["sessions.retired_callback"], 1);
  } finally {
    await site.close();
  }
});
