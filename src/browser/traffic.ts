/**
 * A render's view of its tab's traffic. Main-frame documents are paused (the DevTools Fetch domain), fetched by the
 * crawl's own HTTP fetcher and handed back to the tab, hop by hop; frames' documents are checked against the crawl's
 * rules; what `browser_block` names (resource types, URL globs) is refused and counted; the rest is counted as it
 * finishes, and the requests still going are known, for `networkidle`.
 */
import { Buffer } from "node:buffer";
import type { Protocol } from "puppeteer-core";
import type { CookieJar } from "tough-cookie";
import { FetchError } from "../errors.ts";
import { type RedirectRefusal, RedirectRefused } from "../fetch/downloader.ts";
import type { FetchedResponse } from "../spider/response.ts";
import { Request } from "../spider/request.ts";
import type { Spider } from "../spider/spider.ts";
import { cookiesToBrowser } from "./cookies.ts";
import { defaultDialogAnswer, type DialogAnswer, type Tab, type TabListener } from "./pool.ts";
import { browserErrorMessage } from "./browser_error.ts";
import type { UrlBlock } from "./url_block.ts";
import { HeaderList } from "../runtime/header_list.ts";

/** Headers that described the bytes on the wire; the tab gets the body decoded. */
const WIRE_HEADERS = new Set(["content-encoding", "content-length", "transfer-encoding"]);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** What rendering needs from the crawl. */
export interface RenderDeps {
  spider: Spider;
  jar: CookieJar | undefined;
  uploadDir: string | null;
  maxRedirects: number;
  /** Chromium resource types that are refused. */
  blockTypes: ReadonlySet<string>;
  /** The `browser_init_script` source, run in every document of the page before its own scripts (undefined: none). */
  initScript?: string;
  /** Whether a URL a page asks for is refused (`browser_block`'s URL globs); main-frame documents never are. */
  blockUrl: UrlBlock;
  /** The proxy the request goes through (undefined: none); every document of the page uses it. */
  proxy: string | undefined;
  /** Fetches one document over HTTP (not following redirects): the crawl's HTTP fetcher. */
  fetchDocument(request: Request, signal: AbortSignal): Promise<FetchedResponse>;
  /** Whether the tab may go to a URL after its first document: allowed domains, robots.txt. */
  checkNavigation(target: URL): Promise<RedirectRefusal | undefined>;
  /** Counts sub-resources: `browser.requests`, `browser.bytes`, `browser.blocked`, `browser.blocked_urls`. */
  count(name: string, by?: number): void;
}

/**
 * A failure of the crawl met while rendering (an archive that cannot be written): not the page's fault, so it is
 * carried out to the engine as it is, rather than as a failed request.
 */
export class CrawlFailure extends Error {
  override name = "CrawlFailure";
}

/** What the crawl's own side of a render gives, its unexpected failures marked as the crawl's (not the page's). */
async function crawlSide<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof FetchError || error instanceof RedirectRefused) throw error;
    throw new CrawlFailure("the crawl failed while rendering", { cause: error });
  }
}

const messageOf = browserErrorMessage;

/** The render's view of its tab's traffic: answers paused documents, counts the rest. */
export class Traffic implements TabListener {
  readonly #tab: Tab;
  readonly #request: Request;
  readonly #deps: RenderDeps;
  readonly #signal: AbortSignal;
  /** Main-frame documents asked for so far. */
  documents = 0;
  /** The last main-frame document's answer. */
  last: FetchedResponse | undefined;
  /** The status and headers of a document Chromium fetched itself (a submitted form), by its URL. */
  lastDirect: { url: string; status: number; headers: Headers } | undefined;
  readonly redirects: string[] = [];
  /** What went wrong with a document: a FetchError, a RedirectRefused, or a failure of the crawl. */
  #failure: unknown;
  #failed: () => void = () => {};
  /** Resolves once something went wrong with a document: a navigation it refused never finishes loading. */
  readonly failed: Promise<void> = new Promise((resolve) => this.#failed = resolve);
  readonly #documentIds = new Set<string>();
  #previousUrl: string;
  /**
   * This render's requests that have not finished, by network id. Only this render's: a request the tab's last page
   * left going (a long poll) never finishes here, and must not keep `networkidle` waiting.
   */
  readonly #inFlight = new Set<string>();
  /** Requests that ended before Chromium reported them sent (refused while paused): not to be counted again. */
  readonly #ended = new Set<string>();
  /** How the page's dialogs are answered: as Playwright does until a `dialog` step says otherwise. */
  dialogs: (event: Protocol.Page.JavascriptDialogOpeningEvent) => DialogAnswer = defaultDialogAnswer;
  /** When a request of this render last began or ended (performance.now()). */
  #lastActivity = performance.now();

  constructor(tab: Tab, request: Request, deps: RenderDeps, signal: AbortSignal) {
    this.#tab = tab;
    this.#request = request;
    this.#deps = deps;
    this.#signal = signal;
    this.#previousUrl = request.url;
  }

  onRequestPaused(event: Protocol.Fetch.RequestPausedEvent): void {
    const session = this.#tab.session;
    if (event.resourceType === "Document" && event.frameId === this.#tab.mainFrameId) {
      if (event.networkId) this.#documentIds.add(event.networkId);
      this.#document(event).catch((error) => {
        // The crawl's own side (fetching the document, robots.txt) marks its failures; anything else came from the
        // browser (a tab or a Chromium that closed while the document was answered) and fails this page only.
        const known = error instanceof FetchError || error instanceof RedirectRefused || error instanceof CrawlFailure;
        this.#fail(
          known
            ? error
            : new FetchError("browser", `rendering ${event.request.url} failed: ${messageOf(error)}`, { cause: error }),
        );
        session.send("Fetch.failRequest", { requestId: event.requestId, errorReason: "Failed" }).catch(() => {});
      });
    } else if (this.#deps.blockTypes.has(event.resourceType) || this.#deps.blockUrl(event.request.url)) {
      this.#block(event);
    } else if (event.resourceType === "Document") {
      // A frame's document: Chromium fetches it, but only where the crawl may go (robots.txt, allowed domains).
      this.#frameDocument(event).catch(() => {
        session.send("Fetch.failRequest", { requestId: event.requestId, errorReason: "Failed" }).catch(() => {});
      });
    } else session.send("Fetch.continueRequest", { requestId: event.requestId }).catch(() => {});
  }

  /** Refuses a request `browser_block` names, by its type or its URL. */
  #block(event: Protocol.Fetch.RequestPausedEvent): void {
    this.#deps.count("browser.blocked");
    if (!this.#deps.blockTypes.has(event.resourceType)) this.#deps.count("browser.blocked_urls");
    // Refused: finished as far as waiting for the network goes, whether or not Chromium reports its failure.
    if (event.networkId) this.#finished(event.networkId, true);
    this.#tab.session.send("Fetch.failRequest", { requestId: event.requestId, errorReason: "BlockedByClient" })
      .catch(() => {});
  }

  async #frameDocument(event: Protocol.Fetch.RequestPausedEvent): Promise<void> {
    const session = this.#tab.session;
    const refusal = await this.#deps.checkNavigation(new URL(event.request.url));
    if (refusal === undefined) {
      await session.send("Fetch.continueRequest", { requestId: event.requestId });
      return;
    }
    this.#deps.count("browser.frames_refused");
    if (event.networkId) this.#finished(event.networkId, true);
    await session.send("Fetch.failRequest", { requestId: event.requestId, errorReason: "BlockedByClient" });
  }

  onAuthRequired(event: Protocol.Fetch.AuthRequiredEvent): void {
    const proxy = this.#deps.proxy ? new URL(this.#deps.proxy) : undefined;
    const response: Protocol.Fetch.AuthChallengeResponse = event.authChallenge.source === "Proxy" && proxy?.username
      ? {
        response: "ProvideCredentials",
        username: decodeURIComponent(proxy.username),
        password: decodeURIComponent(proxy.password),
      }
      : { response: "CancelAuth" };
    this.#tab.session.send("Fetch.continueWithAuth", { requestId: event.requestId, authChallengeResponse: response })
      .catch(() => {});
  }

  dialogAnswer(event: Protocol.Page.JavascriptDialogOpeningEvent): DialogAnswer {
    return this.dialogs(event);
  }

  onRequestWillBeSent(event: Protocol.Network.RequestWillBeSentEvent): void {
    if (this.#ended.has(event.requestId)) return;
    this.#inFlight.add(event.requestId);
    this.#lastActivity = performance.now();
  }

  #finished(requestId: string, early = false): void {
    if (early && !this.#inFlight.has(requestId)) this.#ended.add(requestId);
    if (this.#inFlight.delete(requestId) || early) this.#lastActivity = performance.now();
  }

  /**
   * Resolves once none of this render's requests has been going for `idleMs`, or when `until` (epoch ms) has passed
   * (rejecting with a TimeoutError-named error then).
   */
  async networkIdle(idleMs: number, until: number): Promise<void> {
    for (;;) {
      if (this.#inFlight.size === 0 && performance.now() - this.#lastActivity >= idleMs) return;
      if (Date.now() >= until) {
        throw new Error(`${this.#inFlight.size} of the page's requests were still going`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  onLoadingFinished(event: Protocol.Network.LoadingFinishedEvent): void {
    this.#finished(event.requestId);
    if (this.#documentIds.has(event.requestId)) return;
    this.#deps.count("browser.requests");
    this.#deps.count("browser.bytes", event.encodedDataLength);
  }

  onLoadingFailed(event: Protocol.Network.LoadingFailedEvent): void {
    this.#finished(event.requestId);
    if (this.#documentIds.has(event.requestId) || event.blockedReason !== undefined) return;
    if (event.errorText === "net::ERR_BLOCKED_BY_CLIENT") return;
    this.#deps.count("browser.requests");
  }

  onResponseReceived(event: Protocol.Network.ResponseReceivedEvent): void {
    if (event.type !== "Document" || event.frameId !== this.#tab.mainFrameId) return;
    const headers = new HeaderList();
    for (const [name, value] of Object.entries(event.response.headers)) {
      for (const line of String(value).split("\n")) headers.append(name, line);
    }
    this.lastDirect = { url: event.response.url, status: event.response.status, headers };
  }

  async #document(event: Protocol.Fetch.RequestPausedEvent): Promise<void> {
    const session = this.#tab.session;
    const first = this.documents++ === 0;
    const url = event.request.url;
    const method = event.request.method;
    if (!first) {
      if (this.redirects.length > this.#deps.maxRedirects) {
        throw new FetchError("redirects", `${this.#request.url}: more than ${this.#deps.maxRedirects} redirects`);
      }
      const refusal = await crawlSide(this.#deps.checkNavigation(new URL(url)));
      if (refusal) {
        // Not an error of the page: the request ends as a link the crawl's rules turn down would.
        this.#fail(new RedirectRefused(this.#previousUrl, url, refusal));
        await session.send("Fetch.failRequest", { requestId: event.requestId, errorReason: "BlockedByClient" });
        return;
      }
      if (method !== "GET") {
        this.#previousUrl = url;
        this.last = undefined;
        await session.send("Fetch.continueRequest", { requestId: event.requestId });
        return;
      }
    }
    const document = first ? this.#firstDocument() : this.#nextDocument(url, event.request.headers);
    const response = await crawlSide(this.#deps.fetchDocument(document, this.#signal));
    if (this.#deps.jar) await cookiesToBrowser(this.#deps.jar, session, response.url);
    const headers: Protocol.Fetch.HeaderEntry[] = [];
    response.headers.forEach((value, name) => {
      if (!WIRE_HEADERS.has(name)) headers.push({ name, value });
    });
    this.last = response;
    this.lastDirect = undefined;
    this.#previousUrl = response.url;
    if (REDIRECTS.has(response.status) && response.headers.has("location")) this.redirects.push(response.url);
    await session.send("Fetch.fulfillRequest", {
      requestId: event.requestId,
      responseCode: response.status,
      responseHeaders: headers,
      body: Buffer.from(response.body.buffer, response.body.byteOffset, response.body.byteLength).toString("base64"),
    });
  }

  /** The request itself, hop by hop (the tab follows redirects), through the proxy chosen for the whole page. */
  #firstDocument(): Request {
    return this.#request.replace({ allowRedirects: false, meta: this.#meta(), steps: undefined, render: false });
  }

  #nextDocument(url: string, headers: Record<string, string>): Request {
    const referer = Object.entries(headers).find(([name]) => name.toLowerCase() === "referer")?.[1];
    return new Request({
      url,
      headers: referer ? { referer } : {},
      meta: this.#meta(),
      timeout: this.#request.timeout,
      auth: this.#request.auth,
      allowRedirects: false,
      dontFilter: true,
    });
  }

  #meta(): Record<string, unknown> {
    return { ...this.#request.meta, proxy: this.#deps.proxy ?? "" };
  }

  #fail(error: unknown): void {
    if (this.#failure !== undefined) return;
    this.#failure = error;
    this.#failed();
  }

  /** Throws whatever went wrong with a document so far. */
  check(): void {
    if (this.#failure !== undefined) throw this.#failure;
  }
}
