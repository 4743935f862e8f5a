/**
 * `render: "auto"` with callbacks in worker threads (`workers`): a compared page's callback runs twice, on the rendered
 * DOM and on the document as served, and with workers both runs cross to a worker. A real crawl (`netweir crawl`),
 * Debian's Chromium, the auto shop of tests/helpers/auto_site.ts on 127.0.0.1 (listings built by script, products
 * and makers plain HTML). About 15 s on a loaded 2-core machine.
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startAutoSite } from "../helpers/auto_site.ts";
import { runCli, withTempDir } from "../cli/_run.ts";

const FIXTURE = JSON.stringify(new URL("./fixtures/auto_shop_spider.ts", import.meta.url).href);
const MOD = JSON.stringify(new URL("../../mod.ts", import.meta.url).href);

/** The auto shop's spider, its product items saying where the callback ran. */
const SPIDER = `import { type Page, Request } from ${MOD};
import { AutoShop } from ${FIXTURE};
const inWorker = () => typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== "undefined";
export class WorkerShop extends AutoShop {
  override *product(page: Page) {
    for (const out of super.product(page)) yield out instanceof Request ? out : { ...out, inWorker: inWorker() };
  }
}
`;

Deno.test("with workers, render auto samples in the workers and scrapes every page once, products and makers over plain HTTP after the sample", async () => {
  const site = await startAutoSite({ products: 20, perPage: 10, perMaker: 5 });
  try {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "worker_shop.ts"), SPIDER);
      const output = join(dir, "items.jsonl");
      const statsFile = join(dir, "stats.json");
      const result = await runCli([
        "crawl",
        join(dir, "worker_shop.ts"),
        ...["-a", `site=${site.start}`, "-a", "render=auto", "-O", output, "--stats-file", statsFile],
        ...["workers=2", "browser_tabs=2", "concurrency=4", "render_auto_recheck=0", "obey_robots_txt=false"]
          .flatMap((setting) => ["-s", setting]),
      ]);
      assert.equal(result.code, 0, result.stderr);
      const items = (await readFile(output, "utf8")).trim().split("\n").map((line) => JSON.parse(line));
      const products = items.filter((item) => item.name !== undefined);
      assert.deepEqual(
        products.map((item) => item.name).sort(),
        Array.from({ length: 20 }, (_, i) => `Product ${i + 1}`).sort(),
        "every product once",
      );
      assert.ok(products.every((item) => item.inWorker === true), "the callbacks ran in the workers");
      assert.equal(items.filter((item) => item.maker !== undefined).length, 4);

      const stats = JSON.parse(await readFile(statsFile, "utf8"));
      const origin = new URL(site.origin).host;
      const stat = (kind: string, name: string) => Number(stats[`render.auto.${kind} ${origin}${name}`] ?? 0);
      assert.equal(stat("parse", "/list/*.rendered"), 2, "the listings, built by script, rendered");
      assert.ok(stat("parse", "/list/*.differed") >= 1, "and differed without the browser");
      for (const [kind, total] of [["product", 20], ["maker", 4]] as const) {
        assert.equal(stat(kind, `/${kind}/*.rendered`), 3, `${kind}: the sample rendered`);
        assert.equal(stat(kind, `/${kind}/*.plain`), total - 3, `${kind}: the rest over plain HTTP`);
        assert.equal(stat(kind, `/${kind}/*.differed`), 0, `${kind}: the worker's two runs agreed`);
      }
      assert.equal(stats["render.auto.kinds_plain"], 2);
      assert.equal(stats["render.auto.kinds_rendered"], 1);
      for (let id = 1; id <= 20; id++) assert.equal(site.hits(`/product/${id}`), 1);
    });
  } finally {
    await site.close();
  }
});
