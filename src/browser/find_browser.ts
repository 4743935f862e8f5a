/**
 * Which browser renders: `browser_path` when it is set, else the first of Chromium's usual names found on PATH. A
 * browser is never downloaded. Kept apart from the rest of src/browser/ (and free of puppeteer) so the crawl can
 * check for a browser at start without loading anything else.
 */
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { SettingsError } from "../errors.ts";
import { runtime } from "../runtime/mod.ts";
import { spiderMayRender } from "../spider/steps.ts";
import { loadInitScript } from "./init_script.ts";
import { BrowserMissingError } from "../errors.ts";

/** The names looked for on PATH, in order. */
export const BROWSER_NAMES = ["chromium", "chromium-browser", "google-chrome", "chrome"] as const;

// Defined with the other public errors (src/errors.ts); re-exported for the browser's own imports.
export { BrowserMissingError };

function executable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The browser's executable; throws BrowserMissingError saying what was looked for. */
export function findBrowser(browserPath: string | null): string {
  if (browserPath !== null) {
    if (executable(browserPath)) return browserPath;
    throw new BrowserMissingError(`browser_path ${browserPath} is not an executable file`);
  }
  const dirs = (runtime.env("PATH") ?? "").split(delimiter).filter((dir) => dir !== "");
  for (const name of BROWSER_NAMES) {
    for (const dir of dirs) {
      const path = join(dir, name);
      if (executable(path)) return path;
    }
  }
  throw new BrowserMissingError(
    `rendering needs Chrome or Chromium: none of ${BROWSER_NAMES.join(", ")} is on PATH; ` +
      "install one or set browser_path",
  );
}

/**
 * At the start of a crawl, before anything is fetched or any output opened: a spider that may render (see
 * spiderMayRender), or one given a `browser_path`, needs a browser that is there. Throws SettingsError (exit 2)
 * naming `browser_path` when there is none.
 */
export function checkBrowserAtStart(
  spider: Parameters<typeof spiderMayRender>[0],
  settings: {
    browserPath: string | null;
    browserEndpoint?: string | null;
    browserInitScript?: string | null;
    render?: string | null;
  },
): void {
  // A script that cannot be read or compiled is a mistake in the settings, whether or not this spider renders.
  loadInitScript(settings.browserInitScript ?? null);
  // A browser elsewhere is checked by checkEndpointAtStart (src/browser/endpoint.ts), which needs the network.
  if (settings.browserEndpoint != null) return;
  if (settings.browserPath === null && settings.render !== "auto" && !spiderMayRender(spider)) return;
  try {
    findBrowser(settings.browserPath);
  } catch (error) {
    if (error instanceof BrowserMissingError) throw new SettingsError(error.message, { setting: "browser_path" });
    throw error;
  }
}
