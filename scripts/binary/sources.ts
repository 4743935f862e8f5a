/**
 * The two small programs the single binary is made of besides the bundle: the entry the bundle starts from (inside
 * the npm build, next to mod.js) and the script Node's single-executable support runs first.
 */

/** The symbol under which the entry shares the library with spider files that `import ... from "netweir"`. */
const LIBRARY_KEY = "netweir.binary.library";

/**
 * The bundle's entry, written into npm/dist before bundling. It makes the bare specifier "netweir" in a user's spider
 * mean the library inside the binary (the very same classes, so `extends Spider` is the Spider the crawl checks for),
 * strips the types of .ts and .mts files as Node 22 does, and runs the command line.
 */
export const ENTRY_SOURCE = `import * as library from "./mod.js";
import { main } from "./src/cli/main.js";
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

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
`;

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

const INTERNAL = /^(vm\\.USE_MAIN_CONTEXT_DEFAULT_LOADER|stripTypeScriptTypes|module\\.registerHooks|Type Stripping) /;
const emitWarning = process.emitWarning;
process.emitWarning = function (warning, ...rest) {
  const text = typeof warning === "string" ? warning : warning && warning.message;
  if (typeof text === "string" && INTERNAL.test(text)) return;
  return emitWarning.call(process, warning, ...rest);
};

const source = getAsset("netweir.cjs", "utf8");
const run = new vm.Script("(function (exports, require, module, __filename, __dirname) {" + source + "\\n})", {
  filename: "netweir.cjs",
  importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
}).runInThisContext();
const bundle = { exports: {} };
run(bundle.exports, createRequire(process.execPath), bundle, process.execPath, dirname(process.execPath));
`;
