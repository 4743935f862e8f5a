/**
 * Loads the XPath engine (xpath_selection.ts, xpath_select.ts and the `xpath` library with them) on the first XPath a process evaluates.
 * `page.xpath()` answers synchronously, as `css()` does, so the engine cannot come by a dynamic `import()` (a promise):
 * it is required, which Deno and Node (22.12 on) both do for an ES module, synchronously, through `node:module`. The
 * sibling's extension is this file's own: `.ts` from the source, `.js` in the npm build.
 */
import { createRequire } from "node:module";

/** The engine module's face. */
export type XPathEngine = typeof import("./xpath_selection.ts");

/**
 * The loaded module, once loaded: a cache of code, as a module cache is, holding nothing of any crawl (and each
 * worker thread loads its own).
 */
let engine: XPathEngine | undefined;

/**
 * Hands over an engine a bundle already holds (the single binary's: its bundler cannot follow the required path
 * built at run time, so the binary's entries import the engine and give it here before any spider runs).
 */
export function provideXPathEngine(bundled: XPathEngine): void {
  engine ??= bundled;
}

/** The XPath engine, loaded on the first call. */
export function xpathEngine(): XPathEngine {
  if (engine === undefined) {
    try {
      engine = requireSibling<XPathEngine>(import.meta.url, "xpath_selection");
    } catch (error) {
      // A bundle that left the engine's files out and did not provide it has no file beside this one.
      throw new Error(`XPath could not be loaded here: ${(error as Error).message.split("\n")[0]}`);
    }
  }
  return engine;
}

/** The module `name` beside the module at `base`, required synchronously, with `base`'s extension (.ts or .js). */
export function requireSibling<T>(base: string, name: string): T {
  const path = new URL(base).pathname;
  return createRequire(base)(`./${name}${path.slice(path.lastIndexOf("."))}`) as T;
}

/** Whether the engine has been loaded in this process (for the test that nothing loads it before it is used). */
export function xpathLoaded(): boolean {
  return engine !== undefined;
}
