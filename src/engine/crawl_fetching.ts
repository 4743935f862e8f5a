/**
 * The two fetchers a crawl opens on its own behalf: robots.txt through the crawl's downloader (one try, no retries: a
 * site without one answers at once, and a failure counts as robots.txt errors say), and the browser, loaded only when
 * the first request that renders comes (a crawl that renders nothing never imports the browser's modules).
 */
import type { Downloader } from "../fetch/downloader.ts";
import { importOwnModule } from "../runtime/optional_module.ts";
import { Request } from "../spider/request.ts";
import type { CrawlContext } from "./context.ts";
import type { ClosableFetcher } from "./fetchers.ts";
import type { HttpFetcher } from "./http_fetcher.ts";
import { checkRedirect } from "./page_flow.ts";

/** Fetches a robots.txt for RobotsTxt: its status and text, or null when it could not be fetched at all. */
export function robotsFetcher(downloader: Downloader) {
  return async (url: string) => {
    try {
      const response = await downloader.fetch(new Request({ url, meta: { dont_retry: true } }));
      return { status: response.status, text: new TextDecoder().decode(response.body) };
    } catch {
      return null;
    }
  };
}

/** The browser fetcher, loaded on the first request that renders: a crawl that renders nothing never imports it. */
export async function openBrowser(ctx: CrawlContext, http: HttpFetcher): Promise<ClosableFetcher> {
  const { BrowserFetcher } = await importOwnModule<typeof import("../browser/fetcher.ts")>(
    import.meta.url,
    "../browser/fetcher.ts",
  );
  return await BrowserFetcher.open({
    settings: ctx.settings,
    spider: ctx.spider,
    log: ctx.log,
    stats: ctx.stats,
    downloader: ctx.downloader,
    http,
    checkNavigation: (request, target) => checkRedirect(ctx, request, target),
  });
}
