/** `netweir parse URL --spider-file FILE` end to end against the fixture shop on 127.0.0.1 (issue 25, item 3). */
import assert from "node:assert/strict";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { fixture, jsonLines, runCli } from "./_run.ts";

const SPIDER = fixture("devloop_spider.ts");
const RULES_SPIDER = fixture("devloop_rules_spider.ts");

Deno.test("parse runs the spider's parse on the page and prints the requests it yields, with their callbacks", async () => {
  const site = await startFixtureSite({ books: 3 });
  try {
    const result = await runCli(["parse", `${site.url}shop/`, "--spider-file", SPIDER]);
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.split("\n");
    assert.equal(lines[0], ">>> level 1 <<<");
    assert.equal(lines[1], `${site.url}shop/ (200) -> parse`);
    assert.equal(lines[2], "  items (0)");
    assert.equal(lines[3], "  requests (3)");
    assert.match(lines[4], /^ {4}GET http:\/\/127\.0\.0\.1:\d+\/shop\/catalogue\/[^ ]+\/index\.html -> parseBook$/);
    // Only the page itself was fetched (and robots.txt): depth 1 follows nothing.
    assert.equal(site.requests.filter((request) => request.path.startsWith("/shop/")).length, 1);
  } finally {
    await site.close();
  }
});

Deno.test("parse --depth 2 --jsonl follows the yielded requests with their own callbacks, level by level", async () => {
  const site = await startFixtureSite({ books: 3 });
  try {
    const result = await runCli(["parse", `${site.url}shop/`, "--spider-file", SPIDER, "-d", "2", "--jsonl"]);
    assert.equal(result.code, 0, result.stderr);
    const lines = jsonLines(result.stdout);
    const pages = lines.filter((line) => line.type === "page");
    assert.deepEqual(pages.map((page) => [page.level, page.callback, page.status]), [
      [1, "parse", 200],
      [2, "parseBook", 200],
      [2, "parseBook", 200],
      [2, "parseBook", 200],
    ]);
    const items = lines.filter((line) => line.type === "item");
    assert.equal(items.length, 3);
    assert.ok(items.every((line) => line.level === 2));
    const expected = await (await fetch(`${site.url}shop/catalogue/the-paper-compass_1/index.html`)).text();
    const title = /<h1>([^<]*)<\/h1>/.exec(expected)![1];
    assert.ok(items.some((line) => (line.item as { title: string }).title === title), result.stdout);
    assert.equal(lines.filter((line) => line.type === "request" && line.level === 1).length, 3);
  } finally {
    await site.close();
  }
});

Deno.test("parse lists a level's pages in the order their requests were yielded, not as their answers came", async () => {
  const site = await startFixtureSite({ books: 1 });
  try {
    const result = await runCli([
      "parse",
      `${site.url}shop/`,
      "--spider-file",
      SPIDER,
      "-c",
      "slowFirst",
      "-d",
      "2",
      "--jsonl",
    ]);
    assert.equal(result.code, 0, result.stderr);
    const pages = jsonLines(result.stdout).filter((line) => line.type === "page" && line.level === 2);
    assert.deepEqual(pages.map((page) => page.url), [`${site.url}slow?ms=600`, `${site.url}echo`]);
  } finally {
    await site.close();
  }
});

Deno.test("parse --callback with --cb-kwargs and --meta runs that method with them", async () => {
  const site = await startFixtureSite({ books: 1 });
  try {
    const book = `${site.url}shop/catalogue/the-paper-compass_1/index.html`;
    const result = await runCli([
      "parse",
      book,
      "--spider-file",
      SPIDER,
      "-c",
      "parseBook",
      "--cb-kwargs",
      '{"shelf": "new"}',
      "--meta",
      '{"seen": 1}',
      "--jsonl",
    ]);
    assert.equal(result.code, 0, result.stderr);
    const item = jsonLines(result.stdout).find((line) => line.type === "item")!.item as Record<string, unknown>;
    assert.equal(item.shelf, "new");
    assert.equal(item.url, book);
  } finally {
    await site.close();
  }
});

Deno.test("parse without --callback picks the rule whose links match the URL, as Scrapy's does", async () => {
  const site = await startFixtureSite({ books: 1 });
  try {
    const book = `${site.url}shop/catalogue/the-paper-compass_1/index.html`;
    const result = await runCli(["parse", book, "--spider-file", RULES_SPIDER, "--jsonl"]);
    assert.equal(result.code, 0, result.stderr);
    const lines = jsonLines(result.stdout);
    assert.equal(lines[0].callback, "rules[0]");
    assert.equal((lines.find((line) => line.type === "item")!.item as { via: string }).via, "rule");
  } finally {
    await site.close();
  }
});

Deno.test("parse exits 1 with one line when the callback throws, after printing what it got", async () => {
  const site = await startFixtureSite({ books: 1 });
  try {
    const result = await runCli(["parse", `${site.url}shop/`, "--spider-file", SPIDER, "-c", "broken"]);
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr,
      `netweir: callback broken failed on ${site.url}shop/: the selector h9 matched nothing\n`,
    );
    assert.match(result.stdout, /error: callback broken failed/);
  } finally {
    await site.close();
  }
});

Deno.test("parse is not stopped by a whole crawl's limits (max_pages) of the spider's settings or -s", async () => {
  const site = await startFixtureSite({ books: 2 });
  try {
    const args = ["parse", `${site.url}shop/`, "--spider-file", SPIDER, "-d", "2", "-s", "max_pages=1", "--jsonl"];
    const result = await runCli(args);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(jsonLines(result.stdout).filter((line) => line.type === "item").length, 2);
  } finally {
    await site.close();
  }
});

Deno.test("parse refuses its mistakes with one line and exit 2", async () => {
  const url = "http://127.0.0.1:1/";
  const cases: Array<[string[], string]> = [
    [["parse", url], "netweir: parse needs the spider: --spider-file FILE\n"],
    [
      ["parse", url, "--spider-file", SPIDER, "-c", "nope"],
      'netweir: callback "nope" is not a method of the spider (devshop)\n',
    ],
    [
      ["parse", url, "--spider-file", SPIDER, "--meta", "[1]"],
      `netweir: --meta must be a JSON object, like '{"key": "value"}'\n`,
    ],
    [["parse", url, "--spider-file", SPIDER, "-d", "0"], 'netweir: --depth must be a whole number from 1, not "0"\n'],
  ];
  for (const [args, line] of cases) {
    const result = await runCli(args);
    assert.equal(result.code, 2, args.join(" "));
    assert.equal(result.stderr, line);
  }
});
