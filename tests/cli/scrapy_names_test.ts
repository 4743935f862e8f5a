import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fixture, runCli, withTempDir } from "./_run.ts";

const FILE = fixture("scrapy_habits.ts");

/** Each Scrapy habit, and the one line that says what Netweir calls it. */
const HABITS: Array<[spider: string, line: string]> = [
  ["StartUrls", "spider StartUrls has start_urls, a Scrapy name; in Netweir it is startUrls"],
  ["AllowedDomains", "spider AllowedDomains has allowed_domains, a Scrapy name; in Netweir it is allowedDomains"],
  [
    "CustomSettings",
    "spider CustomSettings has custom_settings, a Scrapy name; in Netweir it is settings (a Settings or a plain object)",
  ],
  [
    "StartRequests",
    "spider StartRequests has start_requests, a Scrapy name; in Netweir it is start() (an async generator of Requests or URLs)",
  ],
  ["ParseStartUrl", "spider ParseStartUrl has parse_start_url, a Scrapy name; in Netweir it is parseStartUrl"],
  ["ProcessItem", "pipeline ScrapyPipeline has process_item, a Scrapy name; in Netweir it is process(item, spider)"],
  ["OpenSpider", "pipeline pipelines[0] has open_spider, a Scrapy name; in Netweir it is open(spider)"],
  [
    "ProcessRequest",
    "middleware middlewares[0] has process_request, a Scrapy name; in Netweir it is processRequest(request, spider)",
  ],
  [
    "ProcessResponse",
    "middleware middlewares[0] has process_response, a Scrapy name; in Netweir it is processResponse(response, spider)",
  ],
];

for (const [spider, line] of HABITS) {
  Deno.test(`a spider with a Scrapy spelling (${spider}) stops at start with Netweir's name, its -O file untouched`, async () => {
    await withTempDir(async (dir) => {
      const out = join(dir, "items.jsonl");
      await writeFile(out, '{"old":true}\n');
      const result = await runCli(["crawl", FILE, "--spider", spider, "-O", out]);
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stderr, `netweir: ${line}\n`);
      assert.equal(await readFile(out, "utf8"), '{"old":true}\n');
    });
  });
}

Deno.test("a rule's invalid restrictCss is refused at start, not on every page", async () => {
  const result = await runCli(["crawl", FILE, "--spider", "BadRegion"]);
  assert.equal(result.code, 2, result.stderr);
  assert.match(
    result.stderr,
    /^netweir: spider BadRegion rules\[0\]: restrictCss "div\.listing\[" is not a valid selector \(.+\)\n$/,
  );
});
