/**
 * Monitors in the npm package on Node 22: the schema is compiled by the ajv the package depends on (imported the
 * Node way), items breaking it are dropped, and a failed monitor exits 1 with its line, as under Deno.
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { installBuiltPackage } from "../helpers/node_package.ts";

/** The shop's spider, started from `start` (the first listing page), yielding each book's title and URL. */
function spiderSource(start: string): string {
  return `import { Spider } from "netweir";
export class Shop extends Spider {
  startUrls = [${JSON.stringify(start)}];
  *parse(page) {
    for (const href of page.css("article.product_pod h3 a").attrs("href")) {
      yield page.follow(href, { callback: this.parseBook });
    }
  }
  parseBook(page) {
    return { title: page.css("h1").text(), url: page.url };
  }
}
`;
}

Deno.test("on Node 22 a schema monitor drops what breaks it and a failed monitor exits 1", async () => {
  const site = await startFixtureSite({ books: 5 });
  const pkg = await installBuiltPackage();
  try {
    await writeFile(join(pkg.dir, "shop.mjs"), spiderSource(`${site.url}shop/`));
    const out = join(pkg.dir, "items.jsonl");
    const stats = join(pkg.dir, "stats.json");
    // Every title matches; every url breaks the pattern: all dropped, and min_items fails.
    const monitors = {
      min_items: 1,
      schema: { required: ["title"], properties: { url: { pattern: "^https://" } } },
    };
    const crawl = await pkg.netweir([
      "crawl",
      "shop.mjs",
      "-O",
      out,
      "--stats-file",
      stats,
      "-s",
      "obey_robots_txt=false",
      "-s",
      `monitors=${JSON.stringify(monitors)}`,
    ]);
    assert.equal(crawl.code, 1, crawl.stderr);
    assert.match(crawl.stderr, /^netweir: monitor min_items failed: 0 items written, fewer than 1$/m);
    const record = JSON.parse(await readFile(stats, "utf8"));
    assert.equal(record.items_invalid, 5);
    assert.equal(record.items_invalid_url, 5);
    assert.equal(record.items_invalid_title, undefined);
    assert.equal(record.items_dropped_schema, 5);
    assert.equal(await readFile(out, "utf8"), "");
  } finally {
    await pkg.remove();
    await site.close();
  }
});
