/**
 * A crawl that renders nothing never loads the browser: from the crawl command and the library, no chain of static
 * imports reaches puppeteer-core or the browser fetcher. Only `import()` inside the engine does, on the first
 * rendered request.
 */
import assert from "node:assert/strict";
import { runtime } from "../../src/runtime/mod.ts";
import { REPO_ROOT } from "../helpers/cli.ts";
import { runCommand } from "../helpers/command.ts";

interface InfoModule {
  specifier: string;
  dependencies?: Array<{ code?: { specifier: string }; isDynamic?: boolean }>;
}

async function staticallyLoaded(entry: string): Promise<Set<string>> {
  const deno = runtime.selfCommand(entry).command;
  const { code, stdout, stderr } = await runCommand(deno, ["info", "--json", entry], { cwd: REPO_ROOT });
  assert.equal(code, 0, stderr);
  const info = JSON.parse(stdout) as { roots: string[]; modules: InfoModule[] };
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
