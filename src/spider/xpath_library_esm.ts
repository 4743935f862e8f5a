/** The `xpath` library by import, for Deno (see xpath_library.ts). */
import * as xpathModule from "xpath";

/** The library's module object, whichever way the module system hands a CommonJS package over. */
export const library: unknown = (xpathModule as { default?: unknown }).default ?? xpathModule;
