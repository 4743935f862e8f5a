/**
 * The dashboard's two small documents: the live log tail a job page frames while its job waits or runs, and the page
 * an action answers with when it can't be done. Like every page, they run no script and escape every text.
 */
import { maskSecrets } from "../log.ts";
import { escapeHtml } from "./html.ts";
import { BUTTON_STYLE } from "./dashboard_forms.ts";
import { STYLE } from "./page_parts.ts";

/** How much of the log the tail shows at most: the last bytes read, and of those the last lines. */
export const TAIL_BYTES = 32 * 1024;
export const TAIL_LINES = 200;
/** Seconds between reloads of the tail while its job waits or runs. */
export const TAIL_RELOAD_SECONDS = 1;

/**
 * The CSP of the tail: as the other pages', but it may be framed by the service's own pages (its job page) and by
 * nothing else. It holds no form, so framing it gives a page elsewhere nothing to click.
 */
export const TAIL_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; " +
  "frame-ancestors 'self'";

/**
 * The CSP of the pages with buttons (the status page, a job page, /new): forms may be sent to the service itself and
 * nowhere else, the job page may frame its own tail, and the pages themselves may not be framed (no clickjacking).
 */
export const DASHBOARD_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-src 'self'; base-uri 'none'; " +
  "form-action 'self'; frame-ancestors 'none'";

/** The tail document: the log's last lines, newest at the bottom and kept in view, reloading while `live`. */
export function renderTail(log: { text: string; cut: boolean }, live: boolean): string {
  const lines = log.text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const shown = lines.slice(-TAIL_LINES);
  const body = shown.length > 0
    ? `<pre id="log">${escapeHtml(maskSecrets(shown.join("\n")))}</pre>`
    : `<p class="dim">nothing written yet</p>`;
  // column-reverse keeps the scroll at the bottom, where new lines come, without a script to scroll it there.
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
${live ? `<meta http-equiv="refresh" content="${TAIL_RELOAD_SECONDS}">\n` : ""}<title>log tail</title>
<style>${STYLE}
html, body { height: 100%; margin: 0; padding: 0; max-width: none; }
.scroller { height: 100%; overflow-y: auto; display: flex; flex-direction: column-reverse; }
pre { margin: 0; min-height: 100%; box-sizing: border-box; }
</style>
</head>
<body><div class="scroller"><div>${body}</div></div></body>
</html>
`;
}

/** The page an action answers with when it was refused: what happened, in one line, and the way back. */
export function renderMessagePage(nodeName: string, title: string, message: string, back: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · netweir serve · ${escapeHtml(nodeName)}</title>
<style>${STYLE}${BUTTON_STYLE}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p class="notice" role="alert">${escapeHtml(message)}</p>
<p><a href="${escapeHtml(back)}">← back</a></p>
</body>
</html>
`;
}
