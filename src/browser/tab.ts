/**
 * One tab of the pool: its page, the DevTools session Netweir drives it with besides puppeteer's own, what a render
 * listens to on it, and the cleaning that leaves nothing of one request for the next (storage, and cookies when the
 * crawl keeps none).
 */
import type { BrowserContext, CDPSession, Page, Protocol } from "puppeteer-core";
import type { Logger } from "../spider/types.ts";
import { ICON_PATTERN, IconRequests, isIconRequest } from "./icon_requests.ts";

/** What a render listens to on its tab while it has it. */
export interface TabListener {
  onRequestPaused(event: Protocol.Fetch.RequestPausedEvent): void;
  onAuthRequired(event: Protocol.Fetch.AuthRequiredEvent): void;
  onLoadingFinished(event: Protocol.Network.LoadingFinishedEvent): void;
  onLoadingFailed(event: Protocol.Network.LoadingFailedEvent): void;
  onResponseReceived(event: Protocol.Network.ResponseReceivedEvent): void;
  onRequestWillBeSent(event: Protocol.Network.RequestWillBeSentEvent): void;
  /** How to answer a dialog the page opened (alert, confirm, prompt, beforeunload). */
  dialogAnswer(event: Protocol.Page.JavascriptDialogOpeningEvent): DialogAnswer;
}

/** An answer to a dialog: accept (OK) or dismiss (Cancel), and the text a prompt gets when accepted. */
export interface DialogAnswer {
  accept: boolean;
  text?: string;
}

/**
 * Dialogs no step asked about: dismissed, as Playwright does (alert is closed, confirm and prompt say Cancel), except
 * the one that asks whether to leave the page, which is accepted, so the navigation a step started goes on.
 */
export function defaultDialogAnswer(event: Protocol.Page.JavascriptDialogOpeningEvent): DialogAnswer {
  return { accept: event.type === "beforeunload" };
}

/** A tab, and the DevTools session Netweir drives it with besides puppeteer's own. */
export interface Tab {
  readonly page: Page;
  readonly session: CDPSession;
  readonly mainFrameId: string;
  readonly proxyKey: string;
  /** The browser context the tab has to itself: its cookies and storage are no other tab's. */
  readonly context: BrowserContext;
  /** Origins of the documents shown since the tab was last cleaned (their storage is cleared before it is reused). */
  readonly origins: Set<string>;
  /** Which browser it belongs to: tabs of a browser that died are never reused. */
  readonly generation: number;
  uses: number;
  /** Whether the main frame is loading a document now. */
  loading: boolean;
  /** Resolved when the main frame stops loading. */
  loaded(): Promise<void>;
  /**
   * Navigations of the main frame in this tab that the page asked for (a form submitted, a link followed, a script's
   * `location`), counted when Chromium reports the request, which is before the navigation begins.
   */
  navigationRequests: number;
  listener: TabListener | undefined;
  /** A `call` step had the live page: it may have changed the tab for good, so the tab is not reused. */
  changedByCall: boolean;
  /** Set while the tab waits in the pool: sends it to about:blank once it has waited a while. */
  idleTimer?: ReturnType<typeof setTimeout>;
}

/** What every tab is opened with. */
export interface TabSetup {
  log: Logger;
  /** Chromium resource types (`Image`, `Font`, ...) the tabs do not load. */
  blockTypes: string[];
  /** URL globs (Chromium's Fetch syntax) whose requests are paused, for the render to refuse. */
  blockUrls?: string[];
  userAgent: string | null;
  /** Headers added to every request a tab makes (the crawl's default headers). */
  extraHeaders: Record<string, string>;
  /** Whether the tab's proxy asks for a login, which the render answers. */
  proxyLogin: boolean;
}

/** `url`'s origin, as Chromium's storage calls take it ("null" for about:, data: and the like). */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "null";
  }
}

/**
 * What a page leaves in its origin's storage, besides cookies: cleared for every origin the tab showed. Session
 * storage goes with local storage (verified on Chromium 156: `Storage.clearDataForOrigin` empties both).
 */
const STORAGE_TYPES = "local_storage,indexeddb,websql,cache_storage,service_workers,file_systems,shared_storage";

/**
 * Leaves nothing of the tab's last request for its next one: the storage of every origin it showed (local and
 * session storage, IndexedDB, caches, service workers), and, when `cookies` is false, every cookie of its context.
 * The tab's context is its own, so no other tab's page loses anything. Measured with scripts/bench/tab_cleaning.ts
 * (load average about 40): a median of 6 ms a page, 12 ms with the cookies cleared too.
 */
export async function cleanTab(tab: Tab, cookies: boolean): Promise<void> {
  for (const frame of tab.page.frames()) tab.origins.add(originOf(frame.url()));
  const origins = [...tab.origins].filter((origin) => origin !== "null");
  tab.origins.clear();
  for (const origin of origins) {
    await tab.session.send("Storage.clearDataForOrigin", { origin, storageTypes: STORAGE_TYPES });
  }
  if (!cookies) await tab.session.send("Network.clearBrowserCookies");
}

/** The DevTools target id of a tab's page (puppeteer keeps it, without a public name). */
export function targetIdOf(page: Page): string {
  return (page.target() as unknown as { _targetId: string })._targetId;
}

/**
 * Opens a tab in `context` (a context of its own: see the pool) and wires its DevTools session: the events a render
 * listens to, documents paused for the crawl to fetch, dialogs answered.
 */
export async function openTab(
  context: BrowserContext,
  setup: TabSetup,
  proxyKey: string,
  generation: number,
): Promise<Tab> {
  // A window of its own: a tab behind another in the same window is hidden, and Chromium then holds back its
  // input events and animation frames, so a click there never lands while another page renders.
  const page = await context.newPage({ type: "window" });
  try {
    const session = await page.createCDPSession();
    let loadedWaiters: Array<() => void> = [];
    const icons = new IconRequests();
    const { frameTree } = await session.send("Page.getFrameTree");
    const tab: Tab = {
      page,
      session,
      mainFrameId: frameTree.frame.id,
      proxyKey,
      context,
      origins: new Set(),
      generation,
      uses: 0,
      loading: false,
      loaded: () => tab.loading ? new Promise((resolve) => loadedWaiters.push(resolve)) : Promise.resolve(),
      navigationRequests: 0,
      listener: undefined,
      changedByCall: false,
    };
    session.on("Page.frameRequestedNavigation", (event) => {
      if (event.frameId === tab.mainFrameId && event.disposition === "currentTab") tab.navigationRequests++;
    });
    session.on("Page.frameStartedLoading", (event) => {
      if (event.frameId === tab.mainFrameId) tab.loading = true;
    });
    session.on("Page.frameStoppedLoading", (event) => {
      if (event.frameId !== tab.mainFrameId) return;
      tab.loading = false;
      const waiters = loadedWaiters;
      loadedWaiters = [];
      for (const resolve of waiters) resolve();
    });
    session.on("Fetch.requestPaused", (event) => {
      // The page's icon, which Chromium asks for after the load, often once the tab is given back: refused whoever
      // has the tab (src/browser/icon_requests.ts says why).
      if (isIconRequest(event)) icons.refuse(session, event);
      else if (tab.listener) tab.listener.onRequestPaused(event);
      else session.send("Fetch.continueRequest", { requestId: event.requestId }).catch(() => {});
    });
    session.on("Fetch.authRequired", (event) => {
      if (tab.listener) tab.listener.onAuthRequired(event);
      else {
        session.send("Fetch.continueWithAuth", {
          requestId: event.requestId,
          authChallengeResponse: { response: "CancelAuth" },
        }).catch(() => {});
      }
    });
    session.on("Network.loadingFinished", (event) => {
      icons.ended(event.requestId);
      tab.listener?.onLoadingFinished(event);
    });
    session.on("Network.loadingFailed", (event) => {
      icons.ended(event.requestId);
      tab.listener?.onLoadingFailed(event);
    });
    session.on("Page.frameNavigated", (event) => {
      if (event.frame.id === tab.mainFrameId) icons.committed(page);
    });
    session.on("Network.responseReceived", (event) => tab.listener?.onResponseReceived(event));
    session.on("Network.requestWillBeSent", (event) => {
      // Every document's origin, the page's and its frames': whose storage the tab is cleaned of after the render.
      if (event.type === "Document") tab.origins.add(originOf(event.request.url));
      tab.listener?.onRequestWillBeSent(event);
    });
    // A dialog blocks its page until it is answered: answered at once, as the render (its steps) says, and logged.
    session.on("Page.javascriptDialogOpening", (event) => {
      const answer = tab.listener?.dialogAnswer(event) ?? defaultDialogAnswer(event);
      const how = answer.accept ? "accepted" : "dismissed";
      setup.log.info(`${how} a ${event.type} dialog on ${event.url}: ${event.message}`);
      session.send("Page.handleJavaScriptDialog", { accept: answer.accept, promptText: answer.text })
        .catch(() => {});
    });
    await session.send("Page.enable");
    // Only for its events (bytes counted, a submitted form's answer): no buffer of response bodies, which
    // Chromium would otherwise keep per session for a getResponseBody that never comes.
    await session.send("Network.enable", { maxTotalBufferSize: 0, maxResourceBufferSize: 0 });
    const patterns: Protocol.Fetch.RequestPattern[] = [
      { resourceType: "Document", requestStage: "Request" },
      ICON_PATTERN,
    ];
    for (const type of setup.blockTypes) {
      patterns.push({ resourceType: type as Protocol.Network.ResourceType, requestStage: "Request" });
    }
    for (const urlPattern of setup.blockUrls ?? []) patterns.push({ urlPattern, requestStage: "Request" });
    // A proxy login is answered for the tab's own requests too, and Chromium asks only about paused ones.
    const proxyLogin = setup.proxyLogin;
    if (proxyLogin) patterns.push({ urlPattern: "*", requestStage: "Request" });
    await session.send("Fetch.enable", { patterns, handleAuthRequests: proxyLogin });
    if (setup.userAgent) await page.setUserAgent(setup.userAgent);
    if (Object.keys(setup.extraHeaders).length > 0) {
      await page.setExtraHTTPHeaders(setup.extraHeaders);
    }
    await page.setViewport({ width: 1280, height: 800 });
    return tab;
  } catch (error) {
    await page.close().catch(() => {});
    throw error;
  }
}
