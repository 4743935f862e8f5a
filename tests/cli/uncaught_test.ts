import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { runScript } from "../helpers/cli.ts";
import { fixture, runCli, withTempDir } from "./_run.ts";

Deno.test("a rejection left without await and a throw in a timer are logged and counted, and the crawl carries on", async () => {
  const site = await startFixtureSite({ books: 5 });
  try {
    await withTempDir(async (dir) => {
      const json = join(dir, "items.json");
      const stats = join(dir, "stats.json");
      const result = await runCli([
        "crawl",
        fixture("careless_spider.ts"),
        "-a",
        `site=${site.url}shop/`,
        "-O",
        json,
        "--stats-file",
        stats,
        "-s",
        "workers=0",
      ]);
      assert.equal(result.code, 0, result.stderr);
      // The feed is whole (closing ] written) and holds every book, the careless ones included.
      const items = JSON.parse(await readFile(json, "utf8"));
      assert.equal(items.length, 5);
      const record = JSON.parse(await readFile(stats, "utf8"));
      assert.equal(record.finish_reason, "finished");
      assert.equal(record.errors_uncaught, 2);
      assert.match(result.stderr, /closed\(\) ran: finished/);
      // Each error is one line naming the spider; the rejection names its page too.
      const rejection = result.stderr.split("\n").filter((line) => line.includes("forgot to await this"));
      assert.equal(rejection.length, 1, result.stderr);
      assert.match(
        rejection[0],
        /ERROR unhandled rejection in spider Careless on http:\/\/127\.0\.0\.1:\d+\/shop\/catalogue\/[^ ]*_1\/index\.html: forgot to await this/,
      );
      assert.match(rejection[0], /"stack":"Error: forgot to await this\\n/);
      const timer = result.stderr.split("\n").filter((line) => line.includes("thrown in a timer"));
      assert.equal(timer.length, 1, result.stderr);
      assert.match(timer[0], /ERROR uncaught error in spider Careless/);
      assert.doesNotMatch(result.stderr, /^error: Uncaught/m);
    });
  } finally {
    await site.close();
  }
});

Deno.test("a program that embeds Netweir keeps its own unhandled rejections: not the spider's, and they end it", async () => {
  const site = await startFixtureSite({ books: 0 });
  try {
    const result = await runScript(fixture("embedding_program.ts"), [site.url]);
    // The runtime's own report and exit status 1, as without Netweir; the crawl took no part in it.
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /Uncaught \(in promise\) Error: the program's own rejection/);
    assert.doesNotMatch(result.stderr, /in spider/);
    assert.doesNotMatch(result.stdout, /crawl ended/);
  } finally {
    await site.close();
  }
});
