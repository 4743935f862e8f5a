/** Seeing a crawl as it goes (issue 25, item 6): a debug line per fetched page, and items on standard output. */
import assert from "node:assert/strict";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { fixture, runCli, withTempDir } from "./_run.ts";
import { runtime } from "../../src/runtime/mod.ts";
import { CLI_PATH } from "../helpers/cli.ts";
import { runCommand } from "../helpers/command.ts";

const SPIDER = fixture("shop_spider.ts");

Deno.test("crawl -o - writes the items as JSON Lines on standard output and the log on standard error", async () => {
  const site = await startFixtureSite({ books: 12 });
  try {
    const result = await runCli(["crawl", SPIDER, "-a", `site=${site.url}shop/`, "-o", "-", "-s", "min_delay=0"]);
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.split("\n").filter((line) => line !== "");
    assert.equal(lines.length, 12, result.stdout);
    const items = lines.map((line) => JSON.parse(line));
    assert.deepEqual(Object.keys(items[0]), ["title", "price", "url"]);
    assert.equal(new Set(items.map((item) => item.url)).size, 12);
    assert.match(result.stderr, /crawl finished/);
    assert.match(result.stderr, /Stored jsonl feed \(12 items\) in: -/);
  } finally {
    await site.close();
  }
});

Deno.test("crawl -o stdout:csv writes one CSV header and a row per item on standard output", async () => {
  const site = await startFixtureSite({ books: 5 });
  try {
    const result = await runCli(["crawl", SPIDER, "-a", `site=${site.url}shop/`, "-o", "stdout:csv"]);
    assert.equal(result.code, 0, result.stderr);
    const rows = result.stdout.trim().split("\r\n");
    assert.equal(rows[0], "title,price,url");
    assert.equal(rows.length, 6);
  } finally {
    await site.close();
  }
});

Deno.test("crawl refuses a standard output format it cannot stream, and standard output twice", async () => {
  const parquet = await runCli(["crawl", SPIDER, "-o", "stdout:parquet"]);
  assert.equal(parquet.code, 2);
  assert.equal(
    parquet.stderr,
    "netweir: output stdout:parquet is not a format standard output can take; supported: -, stdout:jsonl, " +
      "stdout:json, stdout:csv, stdout:xml\n",
  );
  const twice = await runCli(["crawl", SPIDER, "-o", "-", "-o", "stdout:json"]);
  assert.equal(twice.code, 2);
  assert.equal(twice.stderr, "netweir: output stdout:json is given more than once\n");
});

Deno.test("crawl --log-level debug logs one Crawled line per fetched page, with status, URL and referer", async () => {
  const site = await startFixtureSite({ books: 3 });
  try {
    const shop = `${site.url}shop/`;
    const result = await runCli([
      "crawl",
      SPIDER,
      "-a",
      `site=${shop}`,
      "-o",
      "-",
      "--log-level",
      "debug",
      "-s",
      "obey_robots_txt=false",
    ]);
    assert.equal(result.code, 0, result.stderr);
    const crawled = result.stderr.split("\n").filter((line) => line.includes(" DEBUG Crawled ("));
    const fetched = site.requests.filter((request) => request.path.startsWith("/shop/"));
    assert.equal(crawled.length, fetched.length, result.stderr);
    assert.ok(
      crawled.some((line) => line.endsWith(`DEBUG Crawled (200) <GET ${shop}> (referer: None)`)),
      result.stderr,
    );
    // Items stay on standard output: no log line there.
    assert.equal(result.stdout.split("\n").filter((line) => line !== "").length, 3);
    assert.doesNotMatch(result.stdout, /Crawled/);

    const quiet = await runCli(["crawl", SPIDER, "-a", `site=${shop}`, "-o", "-"]);
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.doesNotMatch(quiet.stderr, /Crawled \(/);
  } finally {
    await site.close();
  }
});

Deno.test("crawl -o - whose reader stops reading ends with one line saying so", async () => {
  const site = await startFixtureSite({ books: 40 });
  try {
    const self = runtime.selfCommand(CLI_PATH);
    const command = [self.command, ...self.args, "crawl", SPIDER, "-a", `site=${site.url}shop/`, "-o", "-"]
      .map((word) => `'${word}'`).join(" ");
    let result = { stdout: "" };
    await withTempDir(async (dir) => {
      result = await runCommand("sh", ["-c", `${command} 2>err.txt | head -1; cat err.txt`], { cwd: dir });
    });
    assert.equal(result.stdout.split("\n")[0].startsWith('{"title":'), true, result.stdout);
    assert.match(
      result.stdout,
      /^netweir: standard output was closed: whatever read the items \(-o -\) stopped reading$/m,
    );
    assert.doesNotMatch(result.stdout, /os error|EPIPE/);
  } finally {
    await site.close();
  }
});
