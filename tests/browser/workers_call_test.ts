/**
 * `workers` and `call` steps: a call step needs the live tab, which stays on the main thread, so it runs there; the
 * callback that gets the rendered page still runs in a worker.
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startJsSite } from "../helpers/js_site.ts";
import { runCli, withTempDir } from "../cli/_run.ts";

const MOD = JSON.stringify(new URL("../../mod.ts", import.meta.url).href);

const SPIDER = `import { type BrowserPage, type Page, Request, Spider } from ${MOD};
export class Forms extends Spider {
  site = "";
  override async *start() {
    yield new Request({ url: this.site + "form", steps: [{ call: { method: "typeQuery", args: { text: "from call" } } }, { click: "#go" }] });
  }
  async typeQuery(tab: BrowserPage, args: Record<string, unknown>) {
    const onMain = typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope === "undefined";
    await tab.type("#q", String(args.text) + (onMain ? " on main" : " in worker"));
  }
  override parse(page: Page) {
    const inWorker = typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== "undefined";
    return { q: page.css("#q").text(), inWorker };
  }
}
`;

Deno.test("with workers, a call step runs on the main thread and the callback in a worker", async () => {
  const site = await startJsSite();
  try {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "forms.ts"), SPIDER);
      const out = join(dir, "items.jsonl");
      const result = await runCli([
        "crawl",
        join(dir, "forms.ts"),
        "-a",
        `site=${site.url}`,
        "-O",
        out,
        "-s",
        "workers=1",
      ]);
      assert.equal(result.code, 0, result.stderr);
      const items = (await readFile(out, "utf8")).trim().split("\n").map((line) => JSON.parse(line));
      assert.deepEqual(items, [{ q: "from call on main", inWorker: true }]);
    });
  } finally {
    await site.close();
  }
});
