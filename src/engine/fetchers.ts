/**
 * How a request is fetched: one interface, two implementations. Plain requests go to the HTTP fetcher; requests
 * with `render` or `steps` go to the browser, which is loaded (module, Chromium and all) on the first request that
 * needs it, so a crawl that renders nothing never loads it. The engine asks `fetcherFor` and never knows which.
 */
import { FetchError } from "../errors.ts";
import type { FetchOptions } from "../fetch/downloader.ts";
import type { FetchedResponse } from "../spider/response.ts";
import type { Request } from "../spider/request.ts";
import { rendersIn } from "../spider/steps.ts";

/** Fetches one request. Rejects with a FetchError or a RedirectRefused; anything else is a failure of the crawl. */
export interface Fetcher {
  fetch(request: Request, options: FetchOptions): Promise<FetchedResponse>;
}

/** A fetcher the crawl closes when it ends. */
export interface ClosableFetcher extends Fetcher {
  close(): Promise<void>;
  /** Lets go of what it keeps for a session that was retired (the browser: its context). */
  dropSession?(id: string): void;
}

/** Makes the browser fetcher; called once, on the first request that renders. */
export type BrowserFactory = () => Promise<ClosableFetcher>;

/** The crawl's fetchers: HTTP always, the browser once a request asks for it. */
export class Fetchers {
  readonly #http: Fetcher;
  readonly #makeBrowser: BrowserFactory;
  /** Whether a host's requests all render (its `hosts` entry's `render`). */
  readonly #hostRenders: (host: string) => boolean;
  #browser: Promise<ClosableFetcher> | undefined;
  #closed = false;

  constructor(http: Fetcher, makeBrowser: BrowserFactory, hostRenders: (host: string) => boolean = () => false) {
    this.#http = http;
    this.#makeBrowser = makeBrowser;
    this.#hostRenders = hostRenders;
  }

  /**
   * The fetcher for a request: the browser when `render` says so (by default, when the request or its host asks for
   * it; `render: "auto"` decides for itself). A browser that cannot be started fails each rendered request with why.
   */
  async fetcherFor(request: Request, render?: boolean): Promise<Fetcher> {
    if (!(render ?? this.renders(request))) return this.#http;
    // A page still on its way when the crawl closed (one whose callback outlived the stop's grace period) must not
    // start a browser after close() looked for one: it would outlive the crawl.
    if (this.#closed && this.#browser === undefined) {
      throw new FetchError("closed", `the crawl has ended; not rendering ${request.url}`);
    }
    this.#browser ??= this.#makeBrowser();
    try {
      return await this.#browser;
    } catch (error) {
      if (error instanceof FetchError) throw error;
      throw new FetchError("browser", (error as Error)?.message ?? String(error), { cause: error });
    }
  }

  /** Whether a request is rendered: by its own `render` or `steps`, or its host's `render` (the `hosts` setting). */
  renders(request: Request): boolean {
    return rendersIn(request) || this.#hostRenders(request.host);
  }

  /** Tells the browser, if it was started, that a session was retired. */
  dropSession(id: string): void {
    this.#browser?.then((browser) => browser.dropSession?.(id), () => {});
  }

  /** Whether the browser was ever asked for. */
  get browserStarted(): boolean {
    return this.#browser !== undefined;
  }

  /** Closes the browser, when one was started. */
  async close(): Promise<void> {
    this.#closed = true;
    const browser = await this.#browser?.catch(() => undefined);
    await browser?.close();
  }
}
