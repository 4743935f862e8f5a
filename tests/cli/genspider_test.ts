/** `netweir genspider NAME DOMAIN [--template T]` end to end (issue 25, item 5). */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runCommand } from "../helpers/command.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { jsonLines, runCli, withTempDir } from "./_run.ts";

const MOD_URL = new URL("../../mod.ts", import.meta.url).href;

Deno.test("genspider writes a spider into a startproject project that list finds and crawl runs", async () => {
  const site = await startFixtureSite({ books: 2 });
  try {
    await withTempDir(async (dir) => {
      assert.equal((await runCli(["startproject", "shop"], { cwd: dir })).code, 0);
      const project = join(dir, "shop");
      const made = await runCli(["genspider", "books", `${site.url}shop/`], { cwd: project });
      assert.equal(made.code, 0, made.stderr);
      assert.equal(made.stdout, "Created spider books (template basic) in spiders/books.ts\n");
      const listed = await runCli(["list", "spiders"], { cwd: project });
      assert.equal(listed.stdout, "books\tspiders/books.ts\nexample\tspiders/example.ts\n");
      const crawled = await runCli(["crawl", "spiders/books.ts", "-o", "-"], { cwd: project });
      assert.equal(crawled.code, 0, crawled.stderr);
      assert.deepEqual(jsonLines(crawled.stdout), [{
        title: "All products | Netweir Book Shop",
        url: `${site.url}shop/`,
      }]);

      const before = await readFile(join(project, "spiders", "books.ts"), "utf8");
      const again = await runCli(["genspider", "books", "example.com", "-t", "rules"], { cwd: project });
      assert.equal(again.code, 1);
      assert.equal(again.stderr, "netweir: spiders/books.ts already exists\n");
      assert.equal(await readFile(join(project, "spiders", "books.ts"), "utf8"), before);
    });
  } finally {
    await site.close();
  }
});

Deno.test("genspider's four templates type-check and load; outside a project the file goes in the current directory", async () => {
  await withTempDir(async (dir) => {
    await writeFile(join(dir, "deno.json"), JSON.stringify({ imports: { netweir: MOD_URL } }));
    for (const template of ["basic", "rules", "sitemap", "render"]) {
      const made = await runCli(["genspider", `news-${template}`, "news.example.org", "-t", template], { cwd: dir });
      assert.equal(made.code, 0, made.stderr);
      assert.equal(made.stdout, `Created spider news-${template} (template ${template}) in news-${template}.ts\n`);
    }
    const text = await readFile(join(dir, "news-sitemap.ts"), "utf8");
    assert.match(text, /export class NewsSitemap extends Spider/);
    assert.match(text, /sitemapUrls = \["https:\/\/news\.example\.org\/sitemap\.xml"\]/);
    assert.match(text, /allowedDomains = \["news\.example\.org"\]/);
    const files = ["basic", "rules", "sitemap", "render"].map((template) => `news-${template}.ts`);
    const checked = await runCommand(Deno.execPath(), ["check", ...files], { cwd: dir });
    assert.equal(checked.code, 0, checked.stderr);
    const listed = await runCli(["list", "."], { cwd: dir });
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.stdout.split("\n").filter(Boolean).length, 4);
  });
});

Deno.test("genspider refuses a bad name, domain or template with one line and exit 2", async () => {
  await withTempDir(async (dir) => {
    const cases: Array<[string[], string]> = [
      [
        ["genspider", "9lives", "example.com"],
        'netweir: invalid spider name "9lives": use a letter, then letters, digits, "_" or "-"\n',
      ],
      [
        ["genspider", "ok", "ftp://example.com/"],
        'netweir: invalid domain "ftp://example.com/": give a host name (example.com) or an http(s) URL\n',
      ],
      [
        ["genspider", "ok", "example.com/path"],
        'netweir: invalid domain "example.com/path": give a host name (example.com) or an http(s) URL\n',
      ],
      [
        ["genspider", "ok", "example.com", "-t", "crawl"],
        "netweir: option '-t, --template <name>' argument 'crawl' is invalid. expected one of basic, rules, sitemap, render\n",
      ],
    ];
    for (const [args, line] of cases) {
      const result = await runCli(args, { cwd: dir });
      assert.equal(result.code, 2, args.join(" "));
      assert.equal(result.stderr, line);
    }
  });
});
