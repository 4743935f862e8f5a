/**
 * XPath in callbacks that run in worker threads: each worker loads the XPath engine itself, on its first XPath, from
 * the same files as the main thread.
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runSpider, type SpiderClass } from "../../mod.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { withTempDir } from "../cli/_run.ts";

const MOD = JSON.stringify(new URL("../../mod.ts", import.meta.url).href);

const SHOP = `import { type Page, Request, Rule, Spider } from ${MOD};
export class XShop extends Spider {
  site = "";
  override async *start() {
    yield new Request({ url: this.site });
  }
  override rules = [new Rule({ restrictXpaths: "//article[has-class('product_pod')]/h3", callback: "parseBook" })];
  parseBook(page: Page) {
    const inWorker = typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== "undefined";
    return {
      title: page.xpath("//div[has-class('product_main')]/h1/text()").text(),
      upc: page.xpath("//tr[th='UPC']/td").text(),
      inWorker,
    };
  }
}
`;

Deno.test("callbacks in workers read pages with XPath, and rules with restrictXpaths pick their links", async () => {
  const site = await startFixtureSite({ books: 6 });
  try {
    await withTempDir(async (dir) => {
      const file = join(dir, "xshop.ts");
      await writeFile(file, SHOP);
      const { XShop } = await import(new URL(`file://${file}`).href) as { XShop: SpiderClass };
      const out = join(dir, "items.jsonl");
      const stats = await runSpider(XShop, {
        spiderFile: new URL(`file://${file}`),
        spiderArgs: [`site=${site.url}shop/`],
        settings: { workers: 2, logLevel: "error" },
        output: [out],
      });
      const items = (await readFile(out, "utf8")).trim().split("\n").map((line) => JSON.parse(line));
      assert.equal(stats.finish_reason, "finished");
      assert.equal(items.length, 6);
      assert.ok(items.every((item) => item.inWorker === true), JSON.stringify(items));
      assert.ok(items.every((item) => item.title !== "" && /^[0-9a-f]{16}$/.test(item.upc)), JSON.stringify(items));
    });
  } finally {
    await site.close();
  }
});
