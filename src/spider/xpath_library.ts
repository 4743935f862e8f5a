/**
 * The `xpath` library, loaded with the XPath engine. It is CommonJS: on Node it is required as such, since an ES
 * module's import of it makes Node load its CommonJS export scanner and scan the library's 174 KB first (108 of the
 * first XPath's 133 ms in a profile, docs/design/xpath.md). Deno's `require` does not read the import map, so there it
 * comes through xpath_library_esm.ts, which imports it.
 */
import { createRequire } from "node:module";
import { runtime } from "../runtime/mod.ts";
import { requireSibling } from "./xpath_load.ts";

/** The library's module object (its typings declare too little of it: xpath_select.ts says what it uses). */
export function xpathLibrary(): unknown {
  if (runtime.name === "node") return createRequire(import.meta.url)("xpath");
  return requireSibling<typeof import("./xpath_library_esm.ts")>(import.meta.url, "xpath_library_esm").library;
}
