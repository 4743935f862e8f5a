import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI_PATH, REPO_ROOT, runCli, runScript } from "../helpers/cli.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { shopBook } from "../../examples/shop.ts";

const ignore = !existsSync(CLI_PATH);

Deno.test({
  name: "the books example crawls every book of a shop and yields its title, price, stock, UPC and URL",
  ignore,
  fn: async () => {
    const site = await startFixtureSite({ books: 45 });
    const dir = await mkdtemp(join(tmpdir(), "netweir-books-"));
    try {
      const out = join(dir, "books.jsonl");
      const spider = join(REPO_ROOT, "examples", "books.ts");
      const result = await runCli(["crawl", spider, "-a", `site=${site.url}shop/`, "-O", out]);
      assert.equal(result.code, 0, result.stderr);
      const items = (await readFile(out, "utf8")).trim().split("\n").map((line) => JSON.parse(line));
      assert.equal(items.length, 45);
      const byUrl = new Map(items.map((item) => [item.url, item]));
      for (let id = 1; id <= 45; id++) {
        const book = shopBook(id);
        const item = byUrl.get(`${site.url}shop/catalogue/${book.slug}/index.html`);
        assert.deepEqual(item, {
          title: book.title,
          price: book.price,
          availability: `In stock (${book.stock} available)`,
          upc: book.upc,
          url: `${site.url}shop/catalogue/${book.slug}/index.html`,
        });
      }
      assert.equal(site.hits("/shop/catalogue/page-3.html"), 1);
    } finally {
      await rm(dir, { recursive: true, force: true });
      await site.close();
    }
  },
});

Deno.test({
  name: "deno task demo crawls the local shop and reports 300 items",
  ignore,
  fn: async () => {
    const dir = await mkdtemp(join(tmpdir(), "netweir-demo-"));
    try {
      const result = await runScript(join(REPO_ROOT, "scripts", "demo.ts"), [], { cwd: dir, timeoutMs: 120_000 });
      assert.equal(result.code, 0, result.stderr);
      const output = join(dir, "demo-items.jsonl");
      assert.equal(result.stdout, `Crawled 315 pages; 300 items in ${output}\n`);
      assert.equal((await readFile(output, "utf8")).trim().split("\n").length, 300);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
});
