/**
 * Why Node would refuse to load a spider file as a module: a `.ts` or `.js` file whose nearest package.json says
 * `"type": "commonjs"` (what `npm init -y` writes) is loaded as CommonJS, and a spider's `import` then fails with
 * "Cannot use import statement outside a module" and a warning about package.json, which say neither what to change
 * nor where. Deno loads such files as modules, so only Node's side asks.
 */
import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** The nearest package.json above `file`, parsed, or undefined. */
function nearestPackageJson(file: string): { path: string; type: unknown } | undefined {
  for (let dir = dirname(file);; dir = dirname(dir)) {
    const path = join(dir, "package.json");
    let text: string | undefined;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      // none here: the directory above
    }
    if (text !== undefined) {
      try {
        return { path, type: (JSON.parse(text) as { type?: unknown }).type };
      } catch {
        return undefined; // a package.json Node cannot read either: its own error says so
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/** Whether a file has a line starting with an import or export statement (not `import(`, which CommonJS has too). */
function usesModuleSyntax(file: string): boolean {
  try {
    return /^\s*(import\s*[\w{*"']|export\s)/m.test(readFileSync(file, "utf8"));
  } catch {
    return true; // unreadable: the import will say why
  }
}

/** A sentence saying how to make Node load `file` (an absolute path) as a module, or undefined when it will. */
export function commonJsProblem(file: string, shown: string): string | undefined {
  if (!/\.(ts|js)$/.test(file)) return undefined;
  const found = nearestPackageJson(file);
  if (found?.type !== "commonjs") return undefined;
  // A .js spider written as CommonJS (require and module.exports) is what such a project expects, and Node loads it.
  if (file.endsWith(".js") && !usesModuleSyntax(file)) return undefined;
  const module = basename(shown).replace(/\.(ts|js)$/, (ext) => ext === ".ts" ? ".mts" : ".mjs");
  return `${shown} is loaded as CommonJS, because package.json has no "type": "module"; ` +
    `add "type": "module" to package.json, or name the file ${module}`;
}
