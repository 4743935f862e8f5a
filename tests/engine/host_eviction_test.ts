/**
 * A host whose per-host state was dropped while it was idle (its slot goes a second after its wait is over) is
 * crawled as if it had never left: its cookies are sent, its robots.txt still applies and is not fetched again.
 */
import assert from "node:assert/strict";
import { type Item, type Page, Request, Spider } from "../../mod.ts";
import { crawl } from "../helpers/crawl_in_process.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";

Deno.test("a host back after a long enough absence for its slot to go keeps its cookies and robots.txt", async () => {
  const home = await startFixtureSite({ robots: "User-agent: *\nDisallow: /shop/\nCrawl-delay: 0.05\n" });
  const away = await startFixtureSite({ hostname: "127.0.0.2" });
  try {
    class Away extends Spider {
      override startUrls = [home.url + "cookies/set?session=abc"];
      override parse(_page: Page) {
        // 1.5 s on another host: longer than the sweep of idle slots (1 s) and home's wait.
        return new Request({ url: away.url + "slow?ms=1500", callback: this.back });
      }
      back(_page: Page) {
        return [
          new Request({ url: home.url + "cookies/show", callback: this.show }),
          new Request({ url: home.url + "shop/", callback: this.show }),
        ];
      }
      show(page: Page) {
        return page.json<Item>();
      }
    }
    const { items, stats } = await crawl(new Away());
    assert.deepEqual(items, [{ cookies: { session: "abc" } }]);
    assert.equal(home.hits("/shop/"), 0, "robots.txt still disallows /shop/");
    assert.equal((stats.dropped as Record<string, number>).robots, 1);
    assert.equal(home.hits("/robots.txt"), 1, "and it was not fetched again");
  } finally {
    await home.close();
    await away.close();
  }
});
