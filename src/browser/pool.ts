/**
 * A bounded pool of browser tabs. At most `tabs` are in use at once, and at most that many are open. Chromium is
 * started when the first tab is asked for, and started again when it dies: the tabs it had are gone (the pages
 * they were rendering fail, and are retried by the engine), and the next tab asked for starts a new browser.
 *
 * Tabs are reused: the next page replaces the last at once, a tab left idle goes to about:blank so nothing of its
 * page keeps running, and a tab is closed after {@link MAX_TAB_USES} pages, so whatever a site's scripts leak goes
 * with it. Every {@link PRESSURE_EVERY} pages Chromium is told memory is short, so its renderers give back what
 * they no longer need.
 *
 * Each tab has a browser context of its own (its own cookies and storage, and its proxy: Chromium sets proxies per
 * context), cleaned when the tab is given back, so a reused tab carries nothing of its last request into its next.
 * With sessions (`sessions` setting), a tab serves one session only: it is reused for that session's pages, and
 * closed when the session is retired.
 *
 * With `endpoint`, the browser is one running elsewhere: connected to rather than started, reconnected to when the
 * connection drops, and never closed (see remote_chromium.ts).
 */
import type { BrowserContext } from "puppeteer-core";
import type { Logger } from "../spider/types.ts";
import { type Chromium, launchChromium } from "./chromium.ts";
import { connectChromium } from "./remote_chromium.ts";
import { shownEndpoint } from "./endpoint.ts";
import type { ClosedPopup } from "./popup_guard.ts";
import { cleanTab, openTab, type Tab, targetIdOf } from "./tab.ts";
import type { TabProxy } from "./tab_proxy.ts";
import { TabBudget, treeMemory } from "./memory_budget.ts";
import { type SocksRelay, startSocksRelay } from "../runtime/socks_relay.ts";

/** The key idle tabs are matched by: the proxy's URL, after the session's name when there is one. */
function tabKey(proxy: TabProxy | undefined, session: string | undefined): string {
  return session === undefined ? proxy?.url ?? "" : sessionPrefix(session) + (proxy?.url ?? "");
}

function sessionPrefix(session: string): string {
  return `session ${session}\n`;
}

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

export { defaultDialogAnswer, type DialogAnswer, type Tab, type TabListener } from "./tab.ts";
export { type TabProxy, tabProxy } from "./tab_proxy.ts";

export interface TabPoolOptions {
  /** The Chromium to start, when the pool starts its own. */
  executable: string;
  /** A browser running elsewhere to connect to instead (`browser_endpoint`). */
  endpoint?: string;
  /** How long to keep trying to reconnect to the browser elsewhere when it is away, in ms (default 30 s). */
  reconnectMs?: number;
  /** Whether the crawl keeps cookies: when false, each page starts with none in the browser. */
  cookies?: boolean;
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
  /** Called once for each connection to a browser elsewhere that dropped. */
  onDisconnect?(): void;
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

export class TabPool {
  readonly #options: TabPoolOptions;
  #chromium: Promise<Chromium> | undefined;
  #generation = 0;
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

  /**
   * A tab for a page through `proxy` (undefined: direct). Waits for a free one; `signal` gives up waiting. With a
   * `session` name, the tab is one of that session's (src/browser/session_contexts.ts).
   */
  async acquire(proxy: TabProxy | undefined, signal?: AbortSignal, session?: string): Promise<Tab> {
    await this.#slot(signal);
    try {
      // Checked again after the wait: a pool closed meanwhile, or a page given up on, must not start a Chromium that
      // nobody would close (the crawl's process would exit with it running).
      if (this.#closed) throw new Error("the browser is closed");
      signal?.throwIfAborted();
      const key = tabKey(proxy, session);
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
        return await this.#newTab(chromium, proxy, generation, session);
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
        // Nothing of this request may reach the next one's page: a tab that cannot be cleaned is not reused.
        if (!(await cleanTab(tab, this.#options.cookies ?? true).then(() => true, () => false))) {
          await this.#discard(tab);
          return;
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
    const { endpoint } = this.#options;
    const options = {
      protocolTimeoutMs: this.#options.protocolTimeoutMs,
      onPopup: (popup: ClosedPopup) => {
        const opener = popup.openerId === undefined ? undefined : this.#byTarget.get(popup.openerId);
        const by = opener ? ` opened by ${opener.page.url()}` : "";
        this.#options.log.info(`closed a popup to ${popup.url}${by}: popups are not fetched`);
        this.#options.onPopup?.();
      },
    };
    // A browser elsewhere may be restarting (or slow to answer on a loaded machine): waited for a while. Whether one
    // is there at all was checked at the crawl's start, where a wrong endpoint fails at once.
    const starting = endpoint === undefined
      ? launchChromium(this.#options.executable, options)
      : connectChromium(endpoint, { ...options, waitMs: this.#options.reconnectMs ?? 30_000 });
    this.#chromium = starting;
    starting.then((chromium) => {
      const which = chromium.owned ? `Chromium (pid ${chromium.pid})` : `the browser at ${shownEndpoint(endpoint!)}`;
      this.#options.log.debug(chromium.owned ? `started ${which}` : `connected to ${which}`);
      chromium.browser.once("disconnected", () => {
        if (this.#generation !== generation || this.#closed) return;
        if (chromium.owned) {
          this.#options.log.warning(`${which} exited; the pages it was rendering are retried`);
          this.#options.onCrash();
        } else {
          this.#options.log.warning(`lost the connection to ${which}; the pages it was rendering are retried`);
          this.#options.onDisconnect?.();
        }
        this.#chromium = undefined;
        // Its tabs are gone with it; make sure the process is too (one Netweir started), and its profile removed.
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

  /** A new browser context for one tab, with the tab's proxy. */
  async #context(chromium: Chromium, proxy: TabProxy | undefined): Promise<BrowserContext> {
    const browser = chromium.browser;
    let context: BrowserContext;
    if (!proxy) context = await browser.createBrowserContext();
    else {
      // Chromium never proxies loopback unless told to: "<-loopback>" takes it off the bypass list.
      const proxyServer = proxy.socksLogin ? await this.#relay(proxy.url, proxy.socksLogin) : proxy.server;
      context = await browser.createBrowserContext({ proxyServer, proxyBypassList: ["<-loopback>"] });
    }
    if (context.id !== undefined) chromium.adoptContext?.(context.id);
    return context;
  }

  /** Closes a session's idle tabs, and with them their contexts (its cookies and storage in the browser). */
  async closeSession(session: string): Promise<void> {
    for (let i = this.#idle.length - 1; i >= 0; i--) {
      if (this.#idle[i].proxyKey.startsWith(sessionPrefix(session))) await this.#discard(this.#idle.splice(i, 1)[0]);
    }
  }

  async #newTab(
    chromium: Chromium,
    proxy: TabProxy | undefined,
    generation: number,
    session: string | undefined,
  ): Promise<Tab> {
    const context = await this.#context(chromium, proxy);
    try {
      const tab = await openTab(
        context,
        {
          log: this.#options.log,
          blockTypes: this.#options.blockTypes,
          blockUrls: this.#options.blockUrls,
          userAgent: this.#options.userAgent,
          extraHeaders: this.#options.extraHeaders,
          proxyLogin: proxy?.username !== undefined,
        },
        tabKey(proxy, session),
        generation,
      );
      this.#byTarget.set(targetIdOf(tab.page), tab);
      return tab;
    } catch (error) {
      await context.close().catch(() => {});
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
    // The context goes with its one tab: nothing of it is left in the browser (one elsewhere keeps running).
    await tab.context.close().catch(() => tab.page.close()).catch(() => {});
  }
}
