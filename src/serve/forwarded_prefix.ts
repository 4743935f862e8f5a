/**
 * X-Forwarded-Prefix on the HTML pages: a proxy that serves the service at a sub-path (https://host/crawl/ for
 * http://127.0.0.1:6800/) says so in this header, and the pages' links must then start with that path, as scrapyd's
 * do. Every link the pages write is an absolute path in a double-quoted href (`href="/jobs"`), and every text from a
 * job or a spider is escaped (a `"` becomes `&quot;`), so putting the prefix before each `href="/` changes the links
 * and nothing else. A prefix that is not a plain path is ignored rather than written into the page.
 */

/** A path of plain segments: /a, /a/b-c.d; no //, no segment starting with a dot, no query, no quote. */
const PLAIN_PATH = /^(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)+$/;

/** The prefix a proxy gave, when it is a plain path (without its last slash); "" otherwise. */
export function forwardedPrefix(prefix: string | undefined): string {
  const path = prefix?.trim().replace(/\/+$/, "");
  return path && PLAIN_PATH.test(path) ? path : "";
}

/**
 * `html` with `prefix` before each absolute link and form action (the dashboard's forms post to `action="/ui/..."`,
 * written the same way); the page as it was without a usable prefix.
 */
export function withForwardedPrefix(html: string, prefix: string | undefined): string {
  const path = forwardedPrefix(prefix);
  if (!path) return html;
  return html.replaceAll('href="/', `href="${path}/`).replaceAll('action="/', `action="${path}/`).replaceAll(
    'src="/',
    `src="${path}/`,
  );
}
