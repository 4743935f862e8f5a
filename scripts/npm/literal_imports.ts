/**
 * The npm build's half of src/runtime/optional_module.ts: each `importOwnModule(import.meta.url, "x.ts")` and
 * `importPackage("npm:name@version")` call in the emitted JavaScript becomes the literal `import("x.js")` /
 * `import("name")` it stands for (node_modules holds the version package.json pins). Node resolves a literal import only when it runs, so nothing is loaded earlier than before; and the
 * single binary's bundler (esbuild) bundles only what it can see, which a computed specifier hides.
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

const OWN_MODULE = /\bimportOwnModule\(\s*import\.meta\.url,\s*"(\.{1,2}\/[^"]+)\.ts",?\s*\)/g;
/** `importPackage("npm:name@version")`, scoped names too; the npm build's import is of the bare name. */
const PACKAGE = /\bimportPackage\(\s*"npm:((?:@[^/"]+\/)?[^@"]+)@[^"]*",?\s*\)/g;

/** The text with every call made literal, and how many calls there were. */
export function literalImports(text: string): { text: string; calls: number } {
  let calls = 0;
  const replaced = text
    .replace(OWN_MODULE, (_call, path: string) => (calls++, `import("${path}.js")`))
    .replace(PACKAGE, (_call, name: string) => (calls++, `import("${name}")`));
  return { text: replaced, calls };
}

/** Rewrites every .js file under `dir`; returns how many calls it made literal. */
export async function makeImportsLiteral(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".js")) continue;
    const path = join(entry.parentPath, entry.name);
    const { text, calls } = literalImports(await readFile(path, "utf8"));
    if (calls === 0) continue;
    await writeFile(path, text);
    total += calls;
  }
  return total;
}
