/**
 * The `browser_init_script` setting: a script every rendered page runs before its own. The value is either the script
 * itself or the path of a file holding it; a single line ending in `.js`, `.mjs` or `.cjs` is a path (no script is a
 * bare file name), anything else is the source. Both are read and compiled once, at the start of the crawl, so a
 * missing file or a syntax error stops the crawl with one line (exit 2) instead of failing in every page, where
 * Chromium would only report it to the page's console.
 */
import { readFileSync } from "node:fs";
import { SettingsError } from "../errors.ts";

const SCRIPT_FILE = /^[^\n]*\.[mc]?js$/;

/** Whether the setting's value names a file rather than being the script. */
export function namesInitScriptFile(value: string): boolean {
  return SCRIPT_FILE.test(value.trim());
}

/**
 * The source of the init script the setting gives (undefined when it is not set). Throws SettingsError, naming the
 * setting, for a file that cannot be read or a script that does not compile.
 */
export function loadInitScript(value: string | null): string | undefined {
  if (value === null) return undefined;
  let source = value;
  if (namesInitScriptFile(value)) {
    try {
      source = readFileSync(value.trim(), "utf8");
    } catch (error) {
      const why = (error as { code?: string }).code === "ENOENT" ? "no such file" : (error as Error).message;
      throw new SettingsError(`browser_init_script ${value.trim()} cannot be read: ${why}`, {
        setting: "browser_init_script",
      });
    }
  }
  try {
    // Compiled, never called: a syntax error is found here, in the crawl's words, rather than in each page.
    new Function(source);
  } catch (error) {
    const where = namesInitScriptFile(value) ? ` (${value.trim()})` : "";
    throw new SettingsError(`browser_init_script${where} does not compile: ${(error as Error).message}`, {
      setting: "browser_init_script",
    });
  }
  return source;
}
