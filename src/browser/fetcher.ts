/**
 * The browser fetcher: requests with `render` or `steps`, rendered in a tab of the crawl's Chromium. It is loaded
 * by the engine on the first such request, and only then: this module is the one that brings in puppeteer-core.
 */
import { FetchError, SettingsError } from "../errors.ts";
import type { Downloader, FetchOptions } from "../fetch/downloader.ts";
import { RedirectRefused, timeoutFor } from "../fetch/downloader.ts";
import type { FetchedResponse } from "../spider/response.ts";
import type { SettingValues } from "../settings/table.ts";
import type { Request } from "../spider/request.ts";
import type { Spider } from "../spider/spider.ts";
import type { Logger } from "../spider/types.ts";
import { BrowserMissingError, findBrowser } from "./find_browser.ts";
import { browserErrorMessage } from "./browser_error.ts";
import { BrowserStartError } from "./chromium.ts";
import { BrowserConnectError } from "./remote_chromium.ts";
import { TabPool, tabProxy } from "./pool.ts";
import { CrawlFailure, renderInTab } from "./render.ts";
import { SessionContexts } from "./session_contexts.ts";
import { type UrlBlock, urlBlock } from "./url_block.ts";
import { isBlockPattern } from "../settings/table.ts";
import { loadInitScript } from "./init_script.ts";
import { keepSnapshot } from "./failure_snapshot.ts";

/** Chromium's names for the resource types `browser_block` names in lower case. */
const RESOURCE_TYPES: Record<string, string> = {
  stylesheet: "Stylesheet",
  image: "Image",
  media: "Media",
  font: "Font",
  script: "Script",
  texttrack: "TextTrack",
  xhr: "XHR",
  fetch: "Fetch",
  eventsource: "EventSource",
  websocket: "WebSocket",
  manifest: "Manifest",
  other: "Other",
};

/** How long one DevTools call may take: past it, Chromium counts as hung. */
const PROTOCOL_TIMEOUT_MS = 60_000;

/** What the browser fetcher needs from its crawl. */
export interface BrowserFetcherOptions {
  settings: Pick<
    SettingValues,
    | "browserPath"
    | "browserEndpoint"
    | "cookies"
    | "browserTabs"
    | "browserMemory"
    | "browserBlock"
    | "browserUploadDir"
    | "timeout"
    | "maxRedirects"
    | "userAgent"
    | "defaultHeaders"
    | "browserInitScript"
    | "cache"
  >;
  spider: Spider;
  log: Logger;
  stats: { inc(name: string, by?: number): void };
  /** The HTTP side, for the proxy a request goes through and the cookie jar. */
  downloader: Downloader;
  /** Fetches the pages' main documents: the crawl's HTTP fetcher (cache and archives included). */
  http: { fetch(request: Request, options: FetchOptions): Promise<FetchedResponse> };
  /** Where a tab may go after its first document (allowed domains, robots.txt), as for a redirect. */
  checkNavigation(request: Request, target: URL): ReturnType<NonNullable<FetchOptions["checkRedirect"]>>;
}

export class BrowserFetcher {
  readonly #options: BrowserFetcherOptions;
  readonly #pool: TabPool;
  readonly #blockTypes: ReadonlySet<string>;
  readonly #sessions: SessionContexts;
  readonly #tabLook: { userAgent: string | null; extraHeaders: Record<string, string> };
  readonly #blockUrl: UrlBlock;
  readonly #initScript: string | undefined;

  /** `executable` is the Chromium to start; empty when the crawl renders in a browser elsewhere (`browserEndpoint`). */
  private constructor(options: BrowserFetcherOptions, executable: string) {
    this.#options = options;
    const { settings, log, stats } = options;
    const blockTypes = settings.browserBlock.filter((entry) => !isBlockPattern(entry)).map((type) =>
      RESOURCE_TYPES[type]
    );
    const blockUrls = settings.browserBlock.filter(isBlockPattern);
    this.#blockTypes = new Set(blockTypes);
    this.#blockUrl = urlBlock(blockUrls);
    this.#initScript = loadInitScript(settings.browserInitScript);
    // Accept headers are the page's own business: a stylesheet must not be asked for as text/html.
    const extraHeaders = Object.fromEntries(
      Object.entries(settings.defaultHeaders).filter(([name]) => !name.toLowerCase().startsWith("accept")),
    );
    const endpoint = settings.browserEndpoint ?? undefined;
    if (endpoint !== undefined && settings.browserMemory !== null) {
      log.warning(
        "browser_memory is not applied with browser_endpoint: the browser's processes are not this machine's",
      );
    }
    this.#tabLook = { userAgent: settings.userAgent, extraHeaders };
    this.#pool = new TabPool({
      executable,
      endpoint,
      cookies: settings.cookies,
      tabs: settings.browserTabs,
      log,
      blockTypes,
      blockUrls,
      userAgent: settings.userAgent,
      extraHeaders,
      protocolTimeoutMs: PROTOCOL_TIMEOUT_MS,
      onCrash: () => stats.inc("browser.restarts"),
      onDisconnect: () => stats.inc("browser.disconnects"),
      onPopup: () => stats.inc("browser.popups"),
      memoryBudget: settings.browserMemory === null || endpoint !== undefined
        ? undefined
        : settings.browserMemory * 2 ** 20,
    });
    this.#sessions = new SessionContexts((id) => this.#pool.closeSession(id));
  }

  /** A session was retired: its browser contexts close (once none of its tabs is rendering). */
  dropSession(id: string): void {
    this.#sessions.retire(id).catch((error) =>
      this.#options.log.debug(`closing session ${id}'s browser context: ${browserErrorMessage(error)}`)
    );
  }

  /**
   * A fetcher for the crawl; Chromium itself starts on the first page. A browser that cannot be found fails with
   * a FetchError (`browser_missing`, not retried) that says how to set one.
   */
  static open(options: BrowserFetcherOptions): Promise<BrowserFetcher> {
    if (options.settings.browserEndpoint !== null) return Promise.resolve(new BrowserFetcher(options, ""));
    try {
      return Promise.resolve(new BrowserFetcher(options, findBrowser(options.settings.browserPath)));
    } catch (error) {
      if (error instanceof BrowserMissingError) {
        return Promise.reject(new FetchError("browser_missing", error.message, { cause: error }));
      }
      if (error instanceof SettingsError) {
        return Promise.reject(new FetchError("invalid", error.message, { cause: error }));
      }
      return Promise.reject(error);
    }
  }

  /** The running Chromium's pid, when one Netweir started runs. */
  browserPid(): Promise<number | undefined> {
    return this.#pool.pid();
  }

  async fetch(request: Request, options: FetchOptions): Promise<FetchedResponse> {
    const { settings, downloader } = this.#options;
    let seconds: number;
    let proxy: string | undefined;
    try {
      seconds = timeoutFor(request, settings);
      // Chosen once for the whole page, so every document of it goes the same way as its sub-resources.
      proxy = downloader.proxyFor(request, options.session);
    } catch (error) {
      throw new FetchError("invalid", (error as Error).message, { cause: error });
    }
    const signal = options.signal ?? new AbortController().signal;
    const session = options.session;
    let tab;
    try {
      tab = await this.#pool.acquire(proxy ? tabProxy(proxy) : undefined, signal, session?.id);
    } catch (error) {
      if (signal.aborted) throw new FetchError("aborted", `rendering ${request.url} stopped`, { cause: error });
      if (error instanceof BrowserStartError) throw new FetchError("browser_start", error.message, { cause: error });
      // A browser elsewhere may be back later (restarted): retried like a page its browser dropped.
      if (error instanceof BrowserConnectError) throw new FetchError("browser", error.message, { cause: error });
      throw new FetchError("browser", `could not open a browser tab: ${browserErrorMessage(error)}`, { cause: error });
    }
    let healthy = false;
    if (session) this.#sessions.begin(session.id);
    try {
      if (session) await this.#sessions.dress(tab, session, this.#tabLook);
      const response = await renderInTab(
        tab,
        request,
        {
          spider: this.#options.spider,
          jar: session ? session.jar : downloader.cookieJar,
          uploadDir: settings.browserUploadDir,
          maxRedirects: settings.maxRedirects,
          blockTypes: this.#blockTypes,
          blockUrl: this.#blockUrl,
          initScript: this.#initScript,
          proxy,
          fetchDocument: (document, documentSignal) =>
            this.#options.http.fetch(document, { signal: documentSignal, session }),
          checkNavigation: (target) => this.#options.checkNavigation(request, target),
          count: (name, by) => this.#options.stats.inc(name, by),
        },
        seconds,
        signal,
      );
      healthy = true;
      return response;
    } catch (error) {
      if (error instanceof CrawlFailure) throw error.cause;
      if (error instanceof FetchError) await this.#keepSnapshot(request, error);
      // A step that failed, or a navigation turned down, leaves a tab that about:blank makes as good as new.
      healthy = error instanceof RedirectRefused ||
        (error instanceof FetchError && ["browser_step", "browser_script", "redirects"].includes(error.reason));
      if (error instanceof FetchError || error instanceof RedirectRefused) {
        if (error instanceof FetchError && error.reason === "browser_step" && !(await this.#alive(tab))) {
          throw new FetchError("browser", `Chromium exited while rendering ${request.url}`, { cause: error });
        }
        throw error;
      }
      if (!(await this.#alive(tab))) {
        throw new FetchError("browser", `Chromium exited while rendering ${request.url}`, { cause: error });
      }
      throw new FetchError("browser", `rendering ${request.url} failed: ${browserErrorMessage(error)}`, {
        cause: error,
      });
    } finally {
      await this.#pool.release(tab, healthy);
      if (session) await this.#sessions.end(session.id);
    }
  }

  /** Keeps a failed page's snapshot in the cache directory, when there is one; a failure to write it is logged. */
  async #keepSnapshot(request: Request, error: FetchError): Promise<void> {
    const cache = this.#options.settings.cache;
    if (cache === null) return;
    try {
      const stem = await keepSnapshot(cache, request, error);
      if (stem !== undefined) this.#options.log.info(`the page of ${request.url} as it failed: ${stem}.png, .html`);
    } catch (writeError) {
      this.#options.log.warning(`could not keep the failed page of ${request.url}: ${(writeError as Error).message}`);
    }
  }

  /** Whether the tab's browser still answers. */
  async #alive(tab: { page: { browser(): { connected: boolean } } }): Promise<boolean> {
    // The browser's end reaches puppeteer a moment after the calls that failed because of it.
    await new Promise((resolve) => setTimeout(resolve, 50));
    return tab.page.browser().connected;
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }
}
