/**
 * The debug line a crawl logs for each page it fetched, in Scrapy's words so that a Scrapy user's eye (and grep)
 * finds it: `Crawled (200) <GET https://example.com/a> (referer: https://example.com/)`, with `['cached']` or
 * `['rendered']` after the status when the page came from the HTTP cache or the browser.
 */
import { maskUrl } from "../log.ts";
import type { FetchedResponse } from "../spider/response.ts";
import type { Request } from "../spider/request.ts";

/** The Referer the request was sent with (after middlewares), or undefined when it had none. */
function refererOf(request: Request, response: FetchedResponse): string | undefined {
  const sent = response.sent?.headers.get("referer");
  if (sent) return sent;
  for (const [name, value] of Object.entries(request.headers)) if (name.toLowerCase() === "referer") return value;
  return undefined;
}

const FLAGS: Partial<Record<FetchedResponse["source"], string>> = { cache: " ['cached']", browser: " ['rendered']" };

/** The line for one fetched page; URLs are masked, as every log line is. */
export function crawledLine(request: Request, response: FetchedResponse): string {
  const referer = refererOf(request, response);
  const flag = FLAGS[response.source] ?? "";
  const redirected = response.url === request.url ? "" : ` (redirected to ${maskUrl(response.url)})`;
  return `Crawled (${response.status})${flag} <${request.method} ${maskUrl(request.url)}>${redirected}` +
    ` (referer: ${referer === undefined ? "None" : maskUrl(referer)})`;
}
