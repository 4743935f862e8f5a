/**
 * Popups: every page a crawl renders in is one the pool opened (about:blank, no opener); any other is one a rendered
 * page opened (`window.open`, a link or form with a target), which Chromium would fetch itself, with its own user
 * agent and past robots.txt and allowed domains. So none of them loads anything: puppeteer asks about each new page
 * while it waits for the debugger, before its first request, and a popup's id goes on a list; its documents are
 * refused by an interception of the whole browser's documents (enabling one on the popup itself takes effect after
 * puppeteer has let it start); and it is closed once puppeteer has let it go on (closing it while it waits leaves the
 * page that opened it hanging in `window.open` for good).
 *
 * With a browser Netweir did not start (`browser_endpoint`), the targets of other users of that browser (its tabs
 * from before, other clients' contexts) are not attached to at all: only those of the contexts the pool made.
 */
import type { Browser, Protocol, Target } from "puppeteer-core";

/** A page Chromium opened by itself (a popup, a link with a target): closed before it loaded anything. */
export interface ClosedPopup {
  url: string;
  /** The target id of the page that opened it, when it kept its opener. */
  openerId: string | undefined;
}

/** A transport that can also send a command of the browser's own session outside puppeteer (see PipeTransport). */
export interface CommandTransport {
  command(method: string, params: Record<string, unknown>): void;
}

export interface PopupGuardOptions {
  /** Told of each popup closed. */
  onPopup?(popup: ClosedPopup): void;
  /** Whether a browser context is one of the crawl's (undefined: every context is, the browser being Netweir's). */
  ownsContext?(contextId: string | undefined): boolean;
}

/** How long a popup that asks for no document (an empty window a script writes into) stays before it is closed. */
const POPUP_EMPTY_MS = 500;

/**
 * Popups closed, remembered so that a document one asks for after its close was sent is refused too: on a slow
 * machine a popup's first request can come after the guard gave up waiting for it and closed it, and before the close
 * took effect; forgotten, it went through (past robots.txt and allowed domains). Target ids are never reused; the
 * oldest are dropped past this many.
 */
const CLOSED_REMEMBERED = 10_000;

/** Target types that belong to a browser context, and so to one user of a shared browser. */
const CONTEXT_TARGETS = new Set(["page", "iframe", "worker", "service_worker", "shared_worker", "webview", "other"]);

export class PopupGuard {
  /** Popups not closed yet, by target id: who opened each, and the address of the document it asked for. */
  readonly #popups = new Map<string, ClosedPopup & { timer: ReturnType<typeof setTimeout> }>();
  /** Target ids of popups closed (see CLOSED_REMEMBERED), oldest first. */
  readonly #closed = new Set<string>();
  readonly #transport: CommandTransport;
  readonly #options: PopupGuardOptions;

  constructor(transport: CommandTransport, options: PopupGuardOptions) {
    this.#transport = transport;
    this.#options = options;
  }

  /** puppeteer's target filter: the crawl's targets are attached to; a popup is marked, to be closed. */
  keep(target: Target): boolean {
    const info = (target as unknown as { _getTargetInfo(): Protocol.Target.TargetInfo })._getTargetInfo();
    const owns = this.#options.ownsContext;
    if (owns !== undefined && CONTEXT_TARGETS.has(info.type) && !owns(info.browserContextId)) return false;
    if (target.type() !== "page") return true;
    if (info.openerId === undefined && info.url === "about:blank") return true;
    // Closed when its first document is refused; one that asks for none (an empty window) after a moment.
    const timer = setTimeout(() => this.#close(info.targetId), POPUP_EMPTY_MS);
    this.#popups.set(info.targetId, { url: info.url, openerId: info.openerId, timer });
    return true;
  }

  /** Refuses the documents of popups, lets every other one on (to the tab's own interception). */
  async watch(browser: Browser): Promise<void> {
    const session = await browser.target().createCDPSession();
    session.on("Fetch.requestPaused", (event) => {
      // A page's main frame has the page's target id.
      const popup = this.#popups.get(event.frameId);
      if (popup === undefined) {
        const refuse = this.#closed.has(event.frameId);
        const answer = refuse
          ? session.send("Fetch.failRequest", { requestId: event.requestId, errorReason: "BlockedByClient" })
          : session.send("Fetch.continueRequest", { requestId: event.requestId });
        answer.catch(() => {});
        return;
      }
      popup.url = event.request.url;
      session.send("Fetch.failRequest", { requestId: event.requestId, errorReason: "BlockedByClient" })
        .catch(() => {}).then(() => this.#close(event.frameId));
    });
    await session.send("Fetch.enable", { patterns: [{ resourceType: "Document", requestStage: "Request" }] });
  }

  /** Forgets the popups not closed yet (their browser is gone). */
  clear(): void {
    for (const popup of this.#popups.values()) clearTimeout(popup.timer);
    this.#popups.clear();
    this.#closed.clear();
  }

  /** Whether a document of target `targetId` would be refused: a popup waiting to be closed, or one closed. */
  refuses(targetId: string): boolean {
    return this.#popups.has(targetId) || this.#closed.has(targetId);
  }

  #close(targetId: string): void {
    const popup = this.#popups.get(targetId);
    if (popup === undefined) return;
    this.#popups.delete(targetId);
    clearTimeout(popup.timer);
    this.#closed.add(targetId);
    if (this.#closed.size > CLOSED_REMEMBERED) this.#closed.delete(this.#closed.values().next().value!);
    this.#transport.command("Target.closeTarget", { targetId });
    this.#options.onPopup?.({ url: popup.url || "about:blank", openerId: popup.openerId });
  }
}
