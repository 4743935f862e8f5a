/** What the service's HTML pages share: escaping, and the Content-Security-Policy they are served with. */

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text made safe for HTML content and quoted attributes. */
export function escapeHtml(value: unknown): string {
  return String(value ?? "").replace(/[&<>"']/g, (ch) => ESCAPES[ch]);
}

/**
 * The Content-Security-Policy of every page: inline style and inline SVG, nothing else. No script runs, nothing is
 * loaded from anywhere, and no form can be sent.
 */
export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; " +
  "form-action 'none'; frame-ancestors 'none'";
