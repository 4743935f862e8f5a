/** A crawl with the `hosts` setting: the memory frontier's crawl holds a host to its own min_delay and headers. */
import assert from "node:assert/strict";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { crawl } from "../helpers/crawl_in_process.ts";
import { ListSpider } from "./_spiders.ts";

Deno.test("a crawl spaces one host's requests by its hosts entry's min_delay and sends it its user agent", async () => {
  const site = await startFixtureSite();
  try {
    const named = site.url.replace("127.0.0.1", "localhost");
    const urls = Array.from({ length: 3 }, (_, i) => `${named}echo?n=${i}`);
    const started = Date.now();
    await crawl(new ListSpider(urls), {
      obeyRobotsTxt: false,
      hosts: { localhost: { min_delay: 0.3, user_agent: "slow-lane/1" } },
    });
    // Three requests with at least 0.3 s between starts: 0.6 s at the least, whatever the machine's speed.
    assert.ok(Date.now() - started >= 600);
    const seen = site.requests.filter((request) => request.path.startsWith("/echo"));
    assert.equal(seen.length, 3);
    for (const request of seen) assert.equal(request.headers.get("user-agent"), "slow-lane/1");
  } finally {
    await site.close();
  }
});
