/**
 * The `xpath` library, loaded with the XPath engine. It is CommonJS: on Node it is required as such, since an ES
 * module's import of it makes Node load its CommonJS export scanner and scan the library's 174 KB first (108 of the
 * first XPath's 133 ms in a profile, docs/design/xpath.md). Deno's `require` does not read the import map, so there it
 * comes through xpath_library_esm.ts, which imports it.
 */
import { createRequire } from "node:module";
import { runtime } from "../runtime/mod.ts";
import { requireSibling } from "./xpath_load.ts";

/**
 * The library as a bundle already holds it (the single binary's: its bundler cannot see a package required through
 * createRequire, so the binary imports the library and hands it over before the engine loads). A cache of code.
 */
let bundled: unknown;

/** For the single binary's entries: the library they bundled, given before any XPath engine module is evaluated. */
export function provideXPathLibrary(library: unknown): void {
  bundled ??= library;
}

/** The library's module object (its typings declare too little of it: xpath_select.ts says what it uses). */
export function xpathLibrary(): unknown {
  if (bundled !== undefined) return bundled;
  if (runtime.name === "node") return createRequire(import.meta.url)("xpath");
  return requireSibling<typeof import("./xpath_library_esm.ts")>(import.meta.url, "xpath_library_esm").library;
}
