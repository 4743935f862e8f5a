/**
 * The HTTP fetcher: the crawl's downloader with the two parts that sit around every network fetch, the HTTP cache
 * (answers first, keeps what it may) and the archives (WARC, HAR: every exchange that came from the network). The
 * browser sends its pages' main documents through this same fetcher, so they are cached and archived alike.
 */
import { FetchError } from "../errors.ts";
import { HttpCache } from "../fetch/cache.ts";
import { type Downloader, type FetchOptions, RedirectRefused } from "../fetch/downloader.ts";
import type { FetchedResponse } from "../spider/response.ts";
import type { Archives } from "../output/archives.ts";
import type { Request } from "../spider/request.ts";
import type { Logger } from "../spider/types.ts";
import type { Fetcher } from "./fetchers.ts";
import type { Stats } from "./stats.ts";

/** What the HTTP fetcher uses; the cache and archives are read on each fetch, since they open with the crawl. */
export interface HttpFetcherParts {
  readonly downloader: Downloader;
  readonly stats: Stats;
  readonly log: Logger;
  readonly cache: HttpCache | undefined;
  readonly archives: Archives | undefined;
}

export class HttpFetcher implements Fetcher {
  readonly #parts: () => HttpFetcherParts;

  /** `parts` is asked on every fetch: the crawl's context, whose cache and archives open after it is made. */
  constructor(parts: () => HttpFetcherParts) {
    this.#parts = parts;
  }

  async fetch(request: Request, options: FetchOptions): Promise<FetchedResponse> {
    const { downloader, stats, log, cache, archives } = this.#parts();
    const cached = await cache?.get(request);
    if (cached) {
      stats.inc("cache_hits");
      return cached;
    }
    stats.inc("requests");
    let response: FetchedResponse;
    try {
      response = await downloader.fetch(request, options);
    } catch (error) {
      if (error instanceof FetchError || error instanceof RedirectRefused) throw error;
      throw new FetchError("network", (error as Error)?.message ?? String(error), { cause: error });
    }
    if (cache && HttpCache.keeps(response)) {
      // A cache that cannot be written is worth a warning, not a failed request: the page itself is here.
      await cache.put(request, response).then(
        () => stats.inc("cache_stores"),
        (error) => log.warning(`could not keep ${request.url} in the cache: ${(error as Error).message}`),
      );
    }
    if (archives) {
      // A write that fails fails the crawl, as a feed's does: an archive with holes would pass for whole.
      const method = response.sent?.method;
      await archives.add({ response, requestBody: method === "GET" || method === "HEAD" ? undefined : request.body });
    }
    return response;
  }
}
