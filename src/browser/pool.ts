/**
 * A bounded pool of browser tabs. At most `tabs` are in use at once, and at most that many are open. Chromium is
 * started when the first tab is asked for, and started again when it dies: the tabs it had are gone (the pages
 * they were rendering fail, and are retried by the engine), and the next tab asked for starts a new browser.
 *
 * Tabs are reused: the next page replaces the last at once, a tab left idle goes to about:blank so nothing of its
 * page keeps running, and a tab is closed after {@link MAX_TAB_USES} pages, so whatever a site's scripts leak goes
 * with it. Every {@link PRESSURE_EVERY} pages Chromium is told memory is short, so its renderers give back what
 * they no longer need. Tabs are grouped by proxy: each proxy gets a browser context of its own (Chromium sets
 * proxies per context), and the direct tabs use the default one.
 */
import type { Browser, BrowserContext, CDPSession, Page, Protocol } from "puppeteer-core";
import type { Logger } from "../spider/types.ts";
import { type Chromium, launchChromium } from "./chromium.ts";
import { TabBudget, treeMemory } from "./memory_budget.ts";
import { type SocksRelay, startSocksRelay } from "../runtime/socks_relay.ts";

/** How long a tab waits unused before its page is replaced by about:blank. */
const IDLE_BLANK_MS = 1000;

/**
 * Pages a tab renders before it is closed and a fresh one opened. Not often: measured over 3,000 pages, closing a
 * tab every 50 pages made the new ones crowd into one renderer process that grew to 235 MB, where tabs kept open
 * settled at 121 MB, as a bare loop's do.
 */
export const MAX_TAB_USES = 1000;

/**
 * Every this many pages, Chromium is told memory is short (`Memory.simulatePressureNotification`, critical), in all its
 * processes: the renderers collect their garbage and drop their caches, the back-forward cache its pages. Measured over
 * 1,000 pages with four tabs, the renderers then stayed at about 48 MB each instead of growing to 60-70. It changes
 * nothing a page renders; what is dropped is fetched or rebuilt again if needed.
 */
export const PRESSURE_EVERY = 100;

/** How often Chromium's memory is measured under a budget: reading /proc for a dozen processes takes a few ms. */
export const MEMORY_CHECK_MS = 2000;

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

/** A proxy for a context of tabs: where to send traffic, and the login Chromium is to answer its 407 with. */
export interface TabProxy {
  /** The proxy URL as given (the key tabs are grouped by). */
  url: string;
  server: string;
  /** A SOCKS proxy with a login, which Chromium reaches through a relay that logs in for it. */
  socksLogin?: URL;
  username?: string;
  password?: string;
}

export interface TabPoolOptions {
  executable: string;
  tabs: number;
  log: Logger;
  /** Chromium resource types (`Image`, `Font`, ...) the tabs do not load. */
  blockTypes: string[];
  /** URL globs (Chromium's Fetch syntax) whose requests are paused, for the render to refuse. */
  blockUrls?: string[];
  userAgent: string | null;
  /** Headers added to every request a tab makes (the crawl's default headers). */
  extraHeaders: Record<string, string>;
  /** How long one DevTools call may take before it counts as a hung browser. */
  protocolTimeoutMs: number;
  /** Pages a tab renders before it is replaced (default {@link MAX_TAB_USES}). */
  tabUses?: number;
  /** Pages between two memory-pressure signals (default {@link PRESSURE_EVERY}). */
  pressureEvery?: number;
  /** Called once for each Chromium that died by itself (not closed by the pool). */
  onCrash(): void;
  /** Called for each popup a page opened, closed before it fetched anything. */
  onPopup?(): void;
  /** Bytes Chromium's processes may use together before fewer tabs render at once (undefined: no budget). */
  memoryBudget?: number;
  /** Milliseconds between two measures of Chromium's memory under a budget (default {@link MEMORY_CHECK_MS}). */
  memoryCheckMs?: number;
}

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

/** The DevTools target id of a tab's page (puppeteer keeps it, without a public name). */
function targetIdOf(page: Page): string {
  return (page.target() as unknown as { _targetId: string })._targetId;
}

/**
 * Chromium's names for the SOCKS schemes: its socks5 always lets the proxy resolve names (socks5h's meaning); its
 * socks4 sends addresses it resolved itself, which a SOCKS4a proxy takes as well.
 */
const CHROMIUM_SCHEMES: Record<string, string> = { "socks5:": "socks5:", "socks5h:": "socks5:", "socks4a:": "socks4:" };

/** Parses a proxy URL into what Chromium's context takes. */
export function tabProxy(url: string): TabProxy {
  const parsed = new URL(url);
  const socks = CHROMIUM_SCHEMES[parsed.protocol];
  if (socks !== undefined && (parsed.username || parsed.password)) {
    // Chromium cannot log in to a SOCKS proxy: a relay on 127.0.0.1 logs in for it (src/runtime/socks_relay.ts).
    return { url, server: "", socksLogin: new URL(url) };
  }
  return {
    url,
    server: `${socks ?? parsed.protocol}//${parsed.host}`,
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
  };
}

export class TabPool {
  readonly #options: TabPoolOptions;
  #chromium: Promise<Chromium> | undefined;
  #generation = 0;
  readonly #contexts = new Map<string, Promise<BrowserContext>>();
  readonly #relays = new Map<string, Promise<SocksRelay>>();
  readonly #idle: Tab[] = [];
  /** Open tabs by their page's target id: whose page opened a popup. */
  readonly #byTarget = new Map<string, Tab>();
  #inUse = 0;
  #open = 0;
  readonly #waiters: Waiter[] = [];
  #closed = false;
  /** Pages rendered since Chromium was last told memory is short. */
  #sincePressure = 0;
  readonly #budget: TabBudget | undefined;
  #lastMeasure = 0;
  #measuring = false;

  constructor(options: TabPoolOptions) {
    this.#options = options;
    if (options.memoryBudget !== undefined) this.#budget = new TabBudget(options.tabs, options.memoryBudget);
  }

  /** Tabs that may render at once now: `tabs`, or fewer while Chromium is over its memory budget. */
  get tabsAllowed(): number {
    return this.#budget?.allowed ?? this.#options.tabs;
  }

  /** The pid of the running Chromium, if one is running (for tests and the log). */
  async pid(): Promise<number | undefined> {
    return (await this.#chromium?.catch(() => undefined))?.pid;
  }

  /** A tab for a page through `proxy` (undefined: direct). Waits for a free one; `signal` gives up waiting. */
  async acquire(proxy: TabProxy | undefined, signal?: AbortSignal): Promise<Tab> {
    await this.#slot(signal);
    try {
      // Checked again after the wait: a pool closed meanwhile, or a page given up on, must not start a Chromium that
      // nobody would close (the crawl's process would exit with it running).
      if (this.#closed) throw new Error("the browser is closed");
      signal?.throwIfAborted();
      const key = proxy?.url ?? "";
      const chromium = await this.#browser();
      const generation = this.#generation;
      const index = this.#idle.findIndex((tab) => tab.proxyKey === key && tab.generation === generation);
      if (index !== -1) {
        const tab = this.#idle.splice(index, 1)[0];
        clearTimeout(tab.idleTimer);
        return tab;
      }
      // Room for one more tab: close an idle one of another proxy (or of a dead browser) when all are open.
      if (this.#open >= this.#options.tabs && this.#idle.length > 0) await this.#discard(this.#idle.shift()!);
      this.#open++;
      try {
        return await this.#newTab(chromium.browser, proxy, generation);
      } catch (error) {
        this.#open--;
        throw error;
      }
    } catch (error) {
      this.#free();
      throw error;
    }
  }

  /** Gives a tab back: reused when `healthy` (its page ended cleanly), closed otherwise. */
  async release(tab: Tab, healthy: boolean): Promise<void> {
    tab.listener = undefined;
    try {
      tab.uses++;
      const reuse = healthy && !tab.changedByCall && !this.#closed && tab.generation === this.#generation &&
        tab.uses < (this.#options.tabUses ?? MAX_TAB_USES);
      if (reuse) {
        if (++this.#sincePressure >= (this.#options.pressureEvery ?? PRESSURE_EVERY)) {
          this.#sincePressure = 0;
          // Sent by this tab's session, but it reaches every process of the browser.
          await tab.session.send("Memory.simulatePressureNotification", { level: "critical" }).catch(() => {});
        }
        this.#idle.push(tab);
        this.#checkMemory();
        // The next page replaces this one at once; only a tab left idle is sent to about:blank, so nothing of the
        // page it showed keeps running (timers, sockets) while it waits.
        tab.idleTimer = setTimeout(() => this.#blank(tab), IDLE_BLANK_MS);
        return;
      }
      await this.#discard(tab);
    } finally {
      this.#free();
    }
  }

  /** Closes every tab and the browser. Waiting acquirers fail. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const waiter of this.#waiters.splice(0)) waiter.reject(new Error("the browser is closed"));
    const chromium = await this.#chromium?.catch(() => undefined);
    this.#chromium = undefined;
    for (const tab of this.#idle.splice(0)) clearTimeout(tab.idleTimer);
    this.#byTarget.clear();
    await chromium?.close();
    for (const relay of this.#relays.values()) await relay.then((running) => running.close(), () => {});
    this.#relays.clear();
  }

  async #slot(signal?: AbortSignal): Promise<void> {
    if (this.#closed) throw new Error("the browser is closed");
    if (this.#inUse < this.tabsAllowed) {
      this.#inUse++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        reject,
      };
      const onAbort = () => {
        const at = this.#waiters.indexOf(waiter);
        if (at !== -1) this.#waiters.splice(at, 1);
        reject(signal!.reason ?? new Error("aborted"));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  #free(): void {
    // The slot passes straight to the next in line, unless a budget took it away meanwhile.
    const next = this.#inUse <= this.tabsAllowed ? this.#waiters.shift() : undefined;
    if (next) next.resolve();
    else this.#inUse--;
  }

  /**
   * Under a memory budget, now and then: measures Chromium's processes and lowers or raises the tabs allowed. A tab
   * fewer closes an idle tab, which is what gives its memory back; a tab more lets the next waiting page in.
   */
  #checkMemory(): void {
    const budget = this.#budget;
    if (budget === undefined || this.#measuring) return;
    if (Date.now() - this.#lastMeasure < (this.#options.memoryCheckMs ?? MEMORY_CHECK_MS)) return;
    this.#measuring = true;
    this.#lastMeasure = Date.now();
    (async () => {
      const pid = await this.pid();
      const bytes = pid === undefined ? undefined : await treeMemory(pid);
      if (bytes === undefined) {
        if (pid !== undefined) this.#options.log.warning("browser_memory needs /proc to measure Chromium: no budget");
        if (pid !== undefined) this.#lastMeasure = Infinity;
        return;
      }
      const change = budget.measured(bytes);
      if (change === 0) return;
      const mb = Math.round(bytes / 2 ** 20);
      const limit = Math.round(this.#options.memoryBudget! / 2 ** 20);
      this.#options.log.info(
        `Chromium uses ${mb} MB (browser_memory ${limit} MB): rendering ${budget.allowed} pages at once`,
      );
      if (change < 0 && this.#open > budget.allowed && this.#idle.length > 0) await this.#discard(this.#idle.shift()!);
      if (change > 0 && this.#inUse < budget.allowed) {
        const next = this.#waiters.shift();
        if (next) {
          this.#inUse++;
          next.resolve();
        }
      }
    })().catch(() => {}).finally(() => this.#measuring = false);
  }

  #browser(): Promise<Chromium> {
    if (this.#chromium) return this.#chromium;
    const generation = ++this.#generation;
    const starting = launchChromium(this.#options.executable, {
      protocolTimeoutMs: this.#options.protocolTimeoutMs,
      onPopup: (popup) => {
        const opener = popup.openerId === undefined ? undefined : this.#byTarget.get(popup.openerId);
        const by = opener ? ` opened by ${opener.page.url()}` : "";
        this.#options.log.info(`closed a popup to ${popup.url}${by}: popups are not fetched`);
        this.#options.onPopup?.();
      },
    });
    this.#chromium = starting;
    this.#contexts.clear();
    starting.then((chromium) => {
      this.#options.log.debug(`started Chromium (pid ${chromium.pid})`);
      chromium.browser.once("disconnected", () => {
        if (this.#generation !== generation || this.#closed) return;
        this.#options.log.warning(`Chromium (pid ${chromium.pid}) exited; the pages it was rendering are retried`);
        this.#options.onCrash();
        this.#chromium = undefined;
        this.#contexts.clear();
        // Its tabs are gone with it; make sure the process is too, and its profile removed.
        chromium.close(0).catch(() => {});
        for (const [id, tab] of this.#byTarget) if (tab.generation === generation) this.#byTarget.delete(id);
        for (let i = this.#idle.length - 1; i >= 0; i--) {
          if (this.#idle[i].generation === generation) {
            clearTimeout(this.#idle[i].idleTimer);
            this.#idle.splice(i, 1);
            this.#open--;
          }
        }
      });
    }, () => {
      if (this.#chromium === starting) this.#chromium = undefined;
    });
    return starting;
  }

  /** The relay to a SOCKS proxy with a login, started on first use and kept until the pool closes. */
  #relay(key: string, proxy: URL): Promise<string> {
    let relay = this.#relays.get(key);
    if (!relay) this.#relays.set(key, relay = startSocksRelay(proxy));
    return relay.then((running) => running.url);
  }

  #context(browser: Browser, proxy: TabProxy | undefined): Promise<BrowserContext> {
    if (!proxy) return Promise.resolve(browser.defaultBrowserContext());
    let context = this.#contexts.get(proxy.url);
    if (!context) {
      // Chromium never proxies loopback unless told to: "<-loopback>" takes it off the bypass list.
      const server = proxy.socksLogin ? this.#relay(proxy.url, proxy.socksLogin) : Promise.resolve(proxy.server);
      context = server.then((proxyServer) =>
        browser.createBrowserContext({ proxyServer, proxyBypassList: ["<-loopback>"] })
      );
      this.#contexts.set(proxy.url, context);
      context.catch(() => this.#contexts.delete(proxy.url));
    }
    return context;
  }

  async #newTab(browser: Browser, proxy: TabProxy | undefined, generation: number): Promise<Tab> {
    const context = await this.#context(browser, proxy);
    // A window of its own: a tab behind another in the same window is hidden, and Chromium then holds back its
    // input events and animation frames, so a click there never lands while another page renders.
    const page = await context.newPage({ type: "window" });
    try {
      const session = await page.createCDPSession();
      let loadedWaiters: Array<() => void> = [];
      const { frameTree } = await session.send("Page.getFrameTree");
      const tab: Tab = {
        page,
        session,
        mainFrameId: frameTree.frame.id,
        proxyKey: proxy?.url ?? "",
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
        if (tab.listener) tab.listener.onRequestPaused(event);
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
      session.on("Network.loadingFinished", (event) => tab.listener?.onLoadingFinished(event));
      session.on("Network.loadingFailed", (event) => tab.listener?.onLoadingFailed(event));
      session.on("Network.responseReceived", (event) => tab.listener?.onResponseReceived(event));
      session.on("Network.requestWillBeSent", (event) => tab.listener?.onRequestWillBeSent(event));
      // A dialog blocks its page until it is answered: answered at once, as the render (its steps) says, and logged.
      session.on("Page.javascriptDialogOpening", (event) => {
        const answer = tab.listener?.dialogAnswer(event) ?? defaultDialogAnswer(event);
        const how = answer.accept ? "accepted" : "dismissed";
        this.#options.log.info(`${how} a ${event.type} dialog on ${event.url}: ${event.message}`);
        session.send("Page.handleJavaScriptDialog", { accept: answer.accept, promptText: answer.text })
          .catch(() => {});
      });
      await session.send("Page.enable");
      // Only for its events (bytes counted, a submitted form's answer): no buffer of response bodies, which
      // Chromium would otherwise keep per session for a getResponseBody that never comes.
      await session.send("Network.enable", { maxTotalBufferSize: 0, maxResourceBufferSize: 0 });
      const patterns: Protocol.Fetch.RequestPattern[] = [{ resourceType: "Document", requestStage: "Request" }];
      for (const type of this.#options.blockTypes) {
        patterns.push({ resourceType: type as Protocol.Network.ResourceType, requestStage: "Request" });
      }
      for (const urlPattern of this.#options.blockUrls ?? []) patterns.push({ urlPattern, requestStage: "Request" });
      // A proxy login is answered for the tab's own requests too, and Chromium asks only about paused ones.
      const proxyLogin = proxy?.username !== undefined;
      if (proxyLogin) patterns.push({ urlPattern: "*", requestStage: "Request" });
      await session.send("Fetch.enable", { patterns, handleAuthRequests: proxyLogin });
      if (this.#options.userAgent) await page.setUserAgent(this.#options.userAgent);
      if (Object.keys(this.#options.extraHeaders).length > 0) {
        await page.setExtraHTTPHeaders(this.#options.extraHeaders);
      }
      await page.setViewport({ width: 1280, height: 800 });
      this.#byTarget.set(targetIdOf(page), tab);
      return tab;
    } catch (error) {
      await page.close().catch(() => {});
      throw error;
    }
  }

  #blank(tab: Tab): void {
    if (!this.#idle.includes(tab)) return;
    tab.page.goto("about:blank", { timeout: this.#options.protocolTimeoutMs }).catch(() => {
      // A tab that cannot even go blank is not worth keeping.
      const at = this.#idle.indexOf(tab);
      if (at !== -1) this.#idle.splice(at, 1);
      void this.#discard(tab);
    });
  }

  async #discard(tab: Tab): Promise<void> {
    clearTimeout(tab.idleTimer);
    this.#byTarget.delete(targetIdOf(tab.page));
    this.#open--;
    if (tab.generation !== this.#generation) return; // its browser is gone, and the tab with it
    await tab.page.close().catch(() => {});
  }
}
