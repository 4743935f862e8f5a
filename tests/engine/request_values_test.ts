import assert from "node:assert/strict";
import { Request } from "../../mod.ts";
import { crawlItems } from "./_crawl.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { ListSpider } from "./_spiders.ts";

Deno.test("a bad per-request value fails that request once, as its own error, and is not retried as a network error", async () => {
  const site = await startFixtureSite({ books: 1 });
  try {
    const spider = new ListSpider([
      new Request({ url: `${site.url}echo?bad=1`, meta: { download_timeout: "soon" }, errback: "failed" }),
      new Request({ url: `${site.url}echo?good=1`, errback: "failed" }),
    ]);
    const lines: string[] = [];
    const { stats } = await crawlItems(spider, { retries: 3, retryBackoff: 0.01 }, { level: "info", lines });
    assert.equal(site.hits("/echo?bad=1"), 0);
    assert.equal(site.hits("/echo?good=1"), 1);
    assert.equal(stats.retries, 0);
    assert.equal(stats.errors_bad_request, 1);
    assert.equal(stats.errors_network, undefined);
    assert.deepEqual(spider.failures, [`${site.url}echo?bad=1: FetchError`]);
    assert.ok(
      lines.some((line) =>
        line.includes(
          `failed ${site.url}echo?bad=1: timeout of ${site.url}echo?bad=1 must be a number of seconds above 0, not soon`,
        )
      ),
      lines.join(""),
    );
  } finally {
    await site.close();
  }
});
