/**
 * Rendering one request in a tab. The tab's main-frame documents are not fetched by Chromium: each one is paused
 * (the DevTools Fetch domain), fetched by the crawl's own HTTP fetcher, and handed back to the tab. So the main
 * document of a rendered page gets everything a plain request gets — the request's method, body, headers, login,
 * proxy and timeout, the cookie jar, the HTTP cache, the archives — and each document after the first (a redirect,
 * a link a step clicked) is checked against allowed domains and robots.txt like a redirect of a plain request.
 * Redirects are handed to the tab one hop at a time, so it ends up where a browser would, with the right URL.
 *
 * A form a step submits (a POST navigation) is sent by Chromium itself, with the session's cookies, since its
 * body may hold files; it is still checked first. Everything else on the page (scripts, XHR, images) Chromium
 * fetches itself, except the resource types `browser_block` names, which are refused.
 */
import { Buffer } from "node:buffer";
import type { Protocol } from "puppeteer-core";
import type { CookieJar } from "tough-cookie";
import { FetchError } from "../errors.ts";
import { type RedirectRefusal, RedirectRefused } from "../fetch/downloader.ts";
import type { FetchedResponse, Rendered } from "../spider/response.ts";
import { Request } from "../spider/request.ts";
import type { Spider } from "../spider/spider.ts";
import { parseSteps } from "../spider/steps.ts";
import { cookiesFromBrowser, cookiesToBrowser } from "./cookies.ts";
import { defaultDialogAnswer, type DialogAnswer, type Tab, type TabListener } from "./pool.ts";
import { browserErrorMessage } from "./browser_error.ts";
import { dialogAnswers, runSteps } from "./run_steps.ts";
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
  /** The proxy the request goes through (undefined: none); every document of the page uses it. */
  proxy: string | undefined;
  /** Fetches one document over HTTP (not following redirects): the crawl's HTTP fetcher. */
  fetchDocument(request: Request, signal: AbortSignal): Promise<FetchedResponse>;
  /** Whether the tab may go to a URL after its first document: allowed domains, robots.txt. */
  checkNavigation(target: URL): Promise<RedirectRefusal | undefined>;
  /** Counts sub-resources: `browser.requests`, `browser.bytes`, `browser.blocked`. */
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
class Traffic implements TabListener {
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
    } else if (event.resourceType === "Document") {
      // A frame's document: Chromium fetches it, but only where the crawl may go (robots.txt, allowed domains).
      this.#frameDocument(event).catch(() => {
        session.send("Fetch.failRequest", { requestId: event.requestId, errorReason: "Failed" }).catch(() => {});
      });
    } else if (this.#deps.blockTypes.has(event.resourceType)) {
      this.#deps.count("browser.blocked");
      // Refused: finished as far as waiting for the network goes, whether or not Chromium reports its failure.
      if (event.networkId) this.#finished(event.networkId, true);
      session.send("Fetch.failRequest", { requestId: event.requestId, errorReason: "BlockedByClient" })
        .catch(() => {});
    } else session.send("Fetch.continueRequest", { requestId: event.requestId }).catch(() => {});
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

/**
 * A promise that rejects when `signal` aborts, and the way to stop listening. The signal is the crawl's and lives as
 * long as the crawl: a listener left on it keeps its render's whole state alive (the page's HTML, its Traffic, the
 * document's bytes), which over 1,000 pages was 70 MB of the crawl process.
 */
function abortPromise(signal: AbortSignal): { aborted: Promise<never>; stop(): void } {
  let fail = () => {};
  const aborted = new Promise<never>((_, reject) => {
    fail = () => reject(new FetchError("aborted", "rendering stopped: the crawl is stopping"));
  });
  aborted.catch(() => {});
  if (signal.aborted) fail();
  else signal.addEventListener("abort", fail, { once: true });
  return { aborted, stop: () => signal.removeEventListener("abort", fail) };
}

/** Renders `request` in `tab`: navigates, runs its steps, and returns the page as it then stands. */
export async function renderInTab(
  tab: Tab,
  request: Request,
  deps: RenderDeps,
  seconds: number,
  signal: AbortSignal,
): Promise<FetchedResponse> {
  const abort = abortPromise(signal);
  try {
    return await renderUntil(tab, request, deps, seconds, signal, abort.aborted);
  } finally {
    abort.stop();
  }
}

async function renderUntil(
  tab: Tab,
  request: Request,
  deps: RenderDeps,
  seconds: number,
  signal: AbortSignal,
  aborted: Promise<never>,
): Promise<FetchedResponse> {
  const started = performance.now();
  const deadline = Date.now() + seconds * 1000;
  const steps = parseSteps(request.steps);
  const traffic = new Traffic(tab, request, deps, signal);
  const rendered: Rendered = { evaluated: [], screenshots: [] };
  tab.listener = traffic;
  // The dialog steps the list starts with apply from the page's load: its scripts may ask at once.
  for (const step of steps) {
    if (step.action !== "dialog") break;
    traffic.dialogs = dialogAnswers(step);
  }
  const page = tab.page;
  if (deps.jar) await cookiesToBrowser(deps.jar, tab.session, request.url);
  try {
    await Promise.race([page.goto(request.url, { waitUntil: "load", timeout: seconds * 1000 }), aborted]);
  } catch (error) {
    traffic.check();
    if (error instanceof FetchError) throw error;
    const message = messageOf(error);
    if ((error as Error)?.name === "TimeoutError") {
      throw new FetchError("timeout", `${request.url} did not load within ${seconds} s`, { cause: error });
    }
    throw new FetchError("browser", `rendering ${request.url} failed: ${message}`, { cause: error });
  }
  traffic.check();
  await Promise.race([
    runSteps(steps, {
      tab,
      spider: deps.spider,
      uploadDir: deps.uploadDir,
      deadline,
      rendered,
      navigations: () => traffic.documents,
      networkIdle: (idleMs, until) => traffic.networkIdle(idleMs, until),
      answerDialogs: (answer) => traffic.dialogs = answer,
      navigationFailed: traffic.failed,
      checkNavigation: () => traffic.check(),
    }),
    aborted,
  ]);
  // A step may have started a navigation that is still loading: the page is what it shows once loaded.
  if (tab.loading) {
    const left = Math.max(0, deadline - Date.now());
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      tab.loaded(),
      traffic.failed,
      new Promise<void>((resolve) => timer = setTimeout(resolve, left)),
      aborted,
    ]);
    clearTimeout(timer);
  }
  traffic.check();
  const content = await Promise.race([page.content(), aborted]);
  const url = page.url();
  if (deps.jar) await cookiesFromBrowser(deps.jar, tab.session, [...new Set([request.url, url])]);
  const main = traffic.last;
  const direct = traffic.lastDirect;
  return {
    url,
    status: direct?.status ?? main?.status ?? 200,
    headers: direct?.headers ?? main?.headers ?? new HeaderList({ "content-type": "text/html" }),
    body: new TextEncoder().encode(content),
    request,
    redirects: traffic.redirects,
    latency: (performance.now() - started) / 1000,
    source: "browser",
    sent: main?.sent,
    // render: "auto" compares the callback's results on the DOM and on this document (src/engine/render_compare.ts).
    rendered: request.render === "auto" && main !== undefined ? { ...rendered, document: main } : rendered,
  };
}
