/**
 * A crawl that renders nothing never loads the browser: from the crawl command and the library, no chain of static
 * imports reaches puppeteer-core or the browser fetcher. Only `import()` inside the engine does, on the first
 * rendered request.
 */
import assert from "node:assert/strict";
import { moduleGraph } from "../helpers/module_graph.ts";

async function staticallyLoaded(entry: string): Promise<Set<string>> {
  const info = await moduleGraph(entry);
  const modules = new Map(info.modules.map((module) => [module.specifier, module]));
  const loaded = new Set<string>();
  const visit = (specifier: string) => {
    if (loaded.has(specifier)) return;
    loaded.add(specifier);
    for (const dependency of modules.get(specifier)?.dependencies ?? []) {
      if (!dependency.isDynamic && dependency.code) visit(dependency.code.specifier);
    }
  };
  for (const root of info.roots) visit(root);
  return loaded;
}

Deno.test("nothing a plain crawl loads statically imports puppeteer-core or the browser fetcher", async () => {
  for (const entry of ["src/cli/crawl.ts", "mod.ts"]) {
    const loaded = [...await staticallyLoaded(entry)];
    assert.ok(loaded.some((specifier) => specifier.endsWith("/src/engine/crawl.ts")), `${entry} loads the engine`);
    assert.ok(loaded.some((specifier) => specifier.endsWith("/src/browser/find_browser.ts")), "the start check");
    const browser = loaded.filter((specifier) =>
      // The start checks (which browser, a readable init script) import no puppeteer and may load at start.
      /puppeteer/.test(specifier) || /\/src\/browser\/(?!find_browser\.ts$|init_script\.ts$)/.test(specifier)
    );
    assert.deepEqual(browser, [], entry);
  }
});
