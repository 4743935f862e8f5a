/**
 * The small programs the single binary is made of besides its two bundles: the entries the bundles start from
 * (written into the npm build, next to mod.js), the script Node's single-executable support runs first, and the one a
 * callback worker starts with.
 */

/** The symbol under which the entry shares the library with spider files that `import ... from "netweir"`. */
const LIBRARY_KEY = "netweir.binary.library";

/**
 * Written into the npm build beside mod.js, imported first by both entries below. It makes the bare specifier
 * "netweir" in a user's spider mean the library inside the binary (the very same classes, so `extends Spider` is the
 * Spider the crawl checks for), and strips the types of .ts and .mts files as Node 22 does. Hooks belong to a thread,
 * so a callback worker registers its own.
 */
export const HOOKS_SOURCE = `import * as library from "./mod.js";
import { readFileSync } from "node:fs";
import { registerHooks, stripTypeScriptTypes } from "node:module";
import { fileURLToPath } from "node:url";

globalThis[Symbol.for(${JSON.stringify(LIBRARY_KEY)})] = library;
const LIBRARY_URL = "netweir:library";
const librarySource = Object.keys(library)
  .map((name) => \`export const \${name} = globalThis[Symbol.for(${JSON.stringify(LIBRARY_KEY)})].\${name};\`)
  .join("\\n");

registerHooks({
  resolve(specifier, context, next) {
    if (specifier === "netweir") return { url: LIBRARY_URL, shortCircuit: true };
    return next(specifier, context);
  },
  load(url, context, next) {
    if (url === LIBRARY_URL) return { format: "module", source: librarySource, shortCircuit: true };
    if (url.startsWith("file:") && /\\.m?ts$/.test(url)) {
      const source = stripTypeScriptTypes(readFileSync(fileURLToPath(url), "utf8"));
      return { format: "module", source, shortCircuit: true };
    }
    return next(url, context);
  },
});
`;

/**
 * The XPath engine and its library are required at run time (src/spider/xpath_load.ts, xpath_library.ts), by paths
 * no bundler follows: the binary's bundles import both and hand them over, so page.xpath() works in the binary as in
 * the npm build. The library is handed over by a module of its own (XPATH_LIBRARY_SOURCE, written beside the entry as
 * binary_xpath_library.js) because the engine reads it as it is evaluated, and imports are evaluated before any
 * statement of the module that imports them.
 */
export const XPATH_LIBRARY_SOURCE = `import { provideXPathLibrary } from "./src/spider/xpath_library.js";
import { library } from "./src/spider/xpath_library_esm.js";
provideXPathLibrary(library);
`;

const PROVIDE_XPATH = `import "./binary_xpath_library.js";
import { provideXPathEngine } from "./src/spider/xpath_load.js";
import * as xpathEngine from "./src/spider/xpath_selection.js";
provideXPathEngine(xpathEngine);
`;

/** The command line's bundle: the hooks, then `netweir ARGS`. */
export const ENTRY_SOURCE = `import "./binary_hooks.js";
import { main } from "./src/cli/main.js";
${PROVIDE_XPATH}
main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
`;

/** A callback worker's bundle (workers=N): the hooks, then the worker module, which loads the spider itself. */
export const WORKER_ENTRY_SOURCE = `import "./binary_hooks.js";
${PROVIDE_XPATH}import "./src/engine/callback_worker.js";
`;

/**
 * Runs a bundle given as `SOURCE_EXPRESSION` (CommonJS text) through vm, with Node's own module loader behind its
 * import(): both the binary's main script and a worker's boot script start a bundle this way.
 */
function runBundle(sourceExpression: string, filename: string): string {
  return `const INTERNAL = /^(vm\\.USE_MAIN_CONTEXT_DEFAULT_LOADER|stripTypeScriptTypes|module\\.registerHooks|Type Stripping) /;
const emitWarning = process.emitWarning;
process.emitWarning = function (warning, ...rest) {
  const text = typeof warning === "string" ? warning : warning && warning.message;
  if (typeof text === "string" && INTERNAL.test(text)) return;
  return emitWarning.call(process, warning, ...rest);
};

const run = new vm.Script("(function (exports, require, module, __filename, __dirname) {" + ${sourceExpression} + "\\n})", {
  filename: ${JSON.stringify(filename)},
  importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
}).runInThisContext();
const bundle = { exports: {} };
run(bundle.exports, createRequire(process.execPath), bundle, process.execPath, dirname(process.execPath));
`;
}

/**
 * What a callback worker starts with in the binary (an asset; src/runtime/node.ts starts it with `eval`): the
 * worker's bundle arrives as workerData, read from the binary's assets by the thread that starts the worker.
 */
export const WORKER_BOOT_SOURCE = `"use strict";
const { createRequire } = require("node:module");
const { dirname } = require("node:path");
const vm = require("node:vm");
const { workerData } = require("node:worker_threads");
${runBundle("workerData.source", "netweir-worker.cjs")}`;

/**
 * The script the binary starts with. Node runs it as CommonJS whose require() sees only built-in modules and whose
 * import() is not wired up, so it runs the bundle (an asset of the binary) through vm with Node's own module loader
 * for import(), which is what loads a user's spider file. The experimental-feature warnings of what only the binary
 * uses internally are dropped; every other warning still reaches the user.
 */
export const SEA_MAIN_SOURCE = `"use strict";
const { getAsset } = require("node:sea");
const { createRequire } = require("node:module");
const { dirname } = require("node:path");
const vm = require("node:vm");
${runBundle('getAsset("netweir.cjs", "utf8")', "netweir.cjs")}`;
