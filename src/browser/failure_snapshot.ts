/**
 * The page as a rendered request failed: a PNG of the tab's viewport and the page's HTML, taken before the tab is given
 * back, carried on the FetchError (so the errback has them as `failure.screenshot` and `failure.html`), and kept in the
 * cache directory when `cache` is set: CACHE/failures/FINGERPRINT.png and .html, the request's fingerprint naming
 * them as it names the cache's entries, so the last try of a request is what stays.
 *
 * Bounded: the screenshot is of the viewport (1280x800: usually well under 1 MB), never the full page, and one over
 * {@link MAX_SCREENSHOT_BYTES} (a viewport a hook made huge) is left out; the HTML is cut at {@link MAX_HTML_CHARS};
 * taking both gives up after {@link SNAPSHOT_MS}, since a page that failed may be one whose script hangs its renderer,
 * and a failure must not wait on it.
 */
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { FetchError } from "../errors.ts";
import { fingerprint } from "../spider/fingerprint.ts";
import type { Request } from "../spider/request.ts";
import type { Tab } from "./pool.ts";

/** The most of a failed page's HTML kept, in characters. */
export const MAX_HTML_CHARS = 2_000_000;
/** The largest failure screenshot kept: a 1280x800 PNG's pixels uncompressed, and a little over. */
export const MAX_SCREENSHOT_BYTES = 5 * 2 ** 20;
/** How long taking the screenshot and the HTML may take together. */
export const SNAPSHOT_MS = 5000;
/** Failures whose page is not worth a picture: the crawl stopping, a browser that could not start or be found. */
const NO_PAGE = new Set(["aborted", "closed", "browser_start", "browser_missing", "invalid"]);

/** Whether a render's failure gets a snapshot of its page. */
export function snapshotWorthy(error: unknown): error is FetchError {
  return error instanceof FetchError && !NO_PAGE.has(error.reason) && error.screenshot === undefined;
}

/** Takes the tab's screenshot and HTML onto `error`, as far as they can be had within {@link SNAPSHOT_MS}. */
export async function snapshotOnto(error: FetchError, tab: Tab): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => timer = setTimeout(() => resolve(undefined), SNAPSHOT_MS));
  const page = tab.page;
  const screenshot = page.screenshot({ type: "png", fullPage: false, captureBeyondViewport: false })
    .then((bytes) => bytes.byteLength <= MAX_SCREENSHOT_BYTES ? new Uint8Array(bytes) : undefined, () => undefined);
  const html = page.content().then((text) => cutHtml(text), () => undefined);
  try {
    // One after the other would double the wait on a hung page; both at once share it.
    const [png, text] = await Promise.all([Promise.race([screenshot, late]), Promise.race([html, late])]);
    if (png !== undefined) error.screenshot = png;
    if (text !== undefined) error.html = text;
  } finally {
    clearTimeout(timer);
  }
}

/** A page's HTML, cut to {@link MAX_HTML_CHARS} with a comment saying so. */
export function cutHtml(html: string): string {
  if (html.length <= MAX_HTML_CHARS) return html;
  return `${html.slice(0, MAX_HTML_CHARS)}\n<!-- netweir: cut at ${MAX_HTML_CHARS} of ${html.length} characters -->`;
}

/**
 * Writes a failed render's snapshot under `cacheDir`/failures; returns the paths' common stem (without .png/.html),
 * or undefined when there was nothing to write. Each file is written under a temporary name and renamed, as the
 * cache's are.
 */
export async function keepSnapshot(cacheDir: string, request: Request, error: FetchError): Promise<string | undefined> {
  if (error.screenshot === undefined && error.html === undefined) return undefined;
  const dir = join(cacheDir, "failures");
  await mkdir(dir, { recursive: true });
  const stem = join(dir, fingerprint(request));
  if (error.screenshot !== undefined) await writeAtomically(`${stem}.png`, error.screenshot);
  if (error.html !== undefined) await writeAtomically(`${stem}.html`, error.html);
  return stem;
}

async function writeAtomically(path: string, data: Uint8Array | string): Promise<void> {
  const temporary = `${path}.${crypto.randomUUID()}.tmp`;
  await writeFile(temporary, data);
  await rename(temporary, path);
}
