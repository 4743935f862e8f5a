/**
 * Starting and stopping Chromium. Spawned by us, not by puppeteer's `launch`, for three reasons:
 *
 * - it stays in the crawl's process group (puppeteer detaches it into a group of its own), so `netweir serve`'s
 *   cancel, which signals the job's group, reaches Chromium too;
 * - puppeteer's launch installs SIGINT/SIGTERM handlers that kill the browser and exit the process, where a crawl
 *   wants to stop cleanly first;
 * - it talks over a pipe (--remote-debugging-pipe), not a port: when the crawl's process dies, even by SIGKILL, the
 *   pipe closes and Chromium exits by itself, so no browser can outlive its crawl.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { userInfo } from "node:os";
import type { Readable, Writable } from "node:stream";
import puppeteer, { type Browser, type Protocol, type Target } from "puppeteer-core";
import { PipeTransport } from "./pipe_transport.ts";
import { newProfile } from "./profile_dir.ts";

/** Chromium's switches besides puppeteer's defaults: quiet, no first-run work, nothing phoning home. */
const EXTRA_ARGS = [
  "--remote-debugging-pipe",
  "--disable-dev-shm-usage",
  "--disable-gpu",
  "--no-zygote-sandbox",
  "--noerrdialogs",
];

/**
 * Chromium features turned off, besides the ones puppeteer turns off. None of them changes what a page renders; each
 * is memory Chromium spends on something a crawler never uses (measured with scripts/bench/render.ts, PSS per
 * process, Chromium 156):
 *
 * - `WebUIOmniboxPopup`, `WebUIOmniboxAimPopup`: every window preloads two address-bar suggestion popups, built as web
 *   pages, into one renderer of their own. Headless windows have no address bar to show them in; with a window per
 *   tab, that renderer reached 110-140 MB with four tabs, the biggest single process of the browser.
 * - `SpareRendererForSitePerProcess`: a renderer kept started and empty for the next new tab (11-20 MB). The pool
 *   opens a tab once per 1,000 pages, and waits the moment it takes to start one.
 *
 * Not turned off: the back-forward cache. Without it the tabs' renderers grew to 100 MB each instead of 60, since
 * Chromium then keeps one renderer per tab for every page, where with it a navigation may start afresh.
 */
const DISABLED_FEATURES = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "SpareRendererForSitePerProcess"];

/** A browser that could not be started, or exited before it answered: starting it again would fail the same way. */
export class BrowserStartError extends Error {
  override name = "BrowserStartError";
}

/** A running Chromium and the puppeteer Browser connected to it. */
export interface Chromium {
  readonly browser: Browser;
  readonly pid: number;
  /** Resolves when the process has exited, however it ended: with the signal that ended it, or null for none. */
  readonly exited: Promise<string | null>;
  /** Closes the browser (politely, then by SIGKILL after `graceMs`) and removes its profile. */
  close(graceMs?: number): Promise<void>;
}

/** The last bytes of Chromium's stderr, for the message when it fails to start. */
function tail(child: ChildProcess): () => string {
  let text = "";
  child.stderr?.on("data", (chunk) => {
    text = (text + chunk).slice(-2000);
  });
  return () => text.trim().split("\n").slice(-3).join(" | ");
}

/** A page Chromium opened by itself (a popup, a link with a target): closed before it loaded anything. */
export interface ClosedPopup {
  url: string;
  /** The target id of the page that opened it, when it kept its opener. */
  openerId: string | undefined;
}

export interface LaunchOptions {
  protocolTimeoutMs: number;
  /** Told of each popup closed. */
  onPopup?(popup: ClosedPopup): void;
}

/**
 * Popups: every page a crawl renders in is one the pool opened (about:blank, no opener); any other is one a rendered
 * page opened (`window.open`, a link or form with a target), which Chromium would fetch itself, with its own user
 * agent and past robots.txt and allowed domains. So none of them loads anything: puppeteer asks about each new page
 * while it waits for the debugger, before its first request, and a popup's id goes on a list; its documents are
 * refused by an interception of the whole browser's documents (enabling one on the popup itself takes effect after
 * puppeteer has let it start); and it is closed once puppeteer has let it go on (closing it while it waits leaves the
 * page that opened it hanging in `window.open` for good).
 */
/** How long a popup that asks for no document (an empty window a script writes into) stays before it is closed. */
const POPUP_EMPTY_MS = 500;

class PopupGuard {
  /** Popups not closed yet, by target id: who opened each, and the address of the document it asked for. */
  readonly #popups = new Map<string, ClosedPopup & { timer: ReturnType<typeof setTimeout> }>();
  readonly #transport: PipeTransport;
  readonly #options: LaunchOptions;

  constructor(transport: PipeTransport, options: LaunchOptions) {
    this.#transport = transport;
    this.#options = options;
  }

  /** puppeteer's target filter: every target is attached to; a popup is marked, to be closed. */
  keep(target: Target): boolean {
    if (target.type() !== "page") return true;
    const info = (target as unknown as { _getTargetInfo(): Protocol.Target.TargetInfo })._getTargetInfo();
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
        session.send("Fetch.continueRequest", { requestId: event.requestId }).catch(() => {});
        return;
      }
      popup.url = event.request.url;
      session.send("Fetch.failRequest", { requestId: event.requestId, errorReason: "BlockedByClient" })
        .catch(() => {}).then(() => this.#close(event.frameId));
    });
    await session.send("Fetch.enable", { patterns: [{ resourceType: "Document", requestStage: "Request" }] });
  }

  #close(targetId: string): void {
    const popup = this.#popups.get(targetId);
    if (popup === undefined) return;
    this.#popups.delete(targetId);
    clearTimeout(popup.timer);
    this.#transport.command("Target.closeTarget", { targetId });
    this.#options.onPopup?.({ url: popup.url || "about:blank", openerId: popup.openerId });
  }
}

export async function launchChromium(executable: string, options: LaunchOptions): Promise<Chromium> {
  // Under a directory of Netweir's, locked while in use: a crawl killed by SIGKILL leaves its profile behind, and the
  // next crawl to start a browser removes it.
  const profile = await newProfile();
  // puppeteer's defaults end with about:blank, the one tab headless Chromium opens with; the features given here are
  // merged into its own --disable-features.
  const args = puppeteer.defaultArgs({
    headless: true,
    userDataDir: profile.dir,
    args: [`--disable-features=${DISABLED_FEATURES.join(",")}`],
  })
    .filter((arg) => !arg.startsWith("--remote-debugging-port"));
  args.splice(args.length - 1, 0, ...EXTRA_ARGS);
  // Chromium's sandbox cannot start as root; as any other user it stays on.
  if (userInfo().uid === 0) args.splice(args.length - 1, 0, "--no-sandbox");
  const child = spawn(executable, args, { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"], detached: false });
  const stderr = tail(child);
  const exited = new Promise<string | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.signalCode);
    else child.once("exit", (_code, signal) => resolve(signal));
  });
  const removeProfile = () => profile.remove();
  exited.then(removeProfile);
  let howItEnded = "";
  child.once("exit", (code, signal) => howItEnded = signal ? `killed by ${signal}` : `exit status ${code}`);
  // After the exit, once its output is all read: what it said is what the user needs to see.
  const outputClosed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const exitedAtStart = async () => {
    await Promise.race([outputClosed, new Promise((resolve) => setTimeout(resolve, 1000))]);
    return new BrowserStartError(
      `the browser ${executable} exited at start (${howItEnded}): ${stderr() || "it said nothing"}`,
    );
  };
  const failedToStart = new Promise<never>((_, reject) => {
    child.once("error", (error) => reject(new BrowserStartError(`could not start ${executable}: ${error.message}`)));
    exited.then(async () => reject(await exitedAtStart()));
  });
  failedToStart.catch(() => {});
  const transport = new PipeTransport(child.stdio[3] as Writable, child.stdio[4] as Readable);
  let browser: Browser;
  const popups = new PopupGuard(transport, options);
  try {
    browser = await Promise.race([
      puppeteer.connect({
        transport,
        defaultViewport: null,
        protocolTimeout: options.protocolTimeoutMs,
        targetFilter: (target) => popups.keep(target),
      }),
      failedToStart,
    ]);
    // The tab Chromium opens with is never used: its renderer (16-20 MB) would sit there for the whole crawl. Headless
    // Chromium keeps running with no tab open.
    for (const page of await browser.pages()) await page.close();
    await popups.watch(browser);
  } catch (error) {
    // The pipe closes as the process exits, and puppeteer may say "Target closed" before the exit is seen: a browser
    // that exits within a moment of failing exited by itself, and the message says that, with its output.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const byItself = await Promise.race([
      exited.then(() => true),
      new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), 1000)),
    ]);
    clearTimeout(timer);
    if (byItself && !(error instanceof BrowserStartError)) throw await exitedAtStart();
    child.kill("SIGKILL");
    await exited;
    throw error;
  }
  return {
    browser,
    pid: child.pid!,
    exited,
    close: async (graceMs = 5000) => {
      if (child.exitCode === null && child.signalCode === null) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const grace = new Promise<void>((resolve) => timer = setTimeout(resolve, graceMs));
        // browser.close() resolves when the pipe closes, a moment before the process has exited; SIGKILL then would
        // cut Chromium's own shutdown short and orphan its helpers. So the grace period covers the exit itself.
        await Promise.race([browser.close().catch(() => {}).then(() => exited), grace]);
        clearTimeout(timer);
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      }
      await exited;
      await removeProfile();
    },
  };
}
