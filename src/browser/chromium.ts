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
import puppeteer, { type Browser } from "puppeteer-core";
import { PipeTransport } from "./pipe_transport.ts";
import { type ClosedPopup, PopupGuard } from "./popup_guard.ts";
import { newProfile } from "./profile_dir.ts";

export type { ClosedPopup };

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

/**
 * A running Chromium and the puppeteer Browser connected to it: one Netweir started (launchChromium), or one running
 * elsewhere that it connected to (connectChromium in remote_chromium.ts).
 */
export interface Chromium {
  readonly browser: Browser;
  /** The process id, for a browser Netweir started; undefined for one it connected to. */
  readonly pid: number | undefined;
  /** Whether Netweir started it, and so may close it. */
  readonly owned: boolean;
  /**
   * Resolves when the browser is gone for this crawl: the process exited (with the signal that ended it, or null), or
   * the connection to a browser elsewhere closed (null).
   */
  readonly exited: Promise<string | null>;
  /**
   * Ends the crawl's use of it. A browser Netweir started is closed (politely, then by SIGKILL after `graceMs`) and its
   * profile removed; one it connected to is only disconnected from, its own tabs and contexts left as they were.
   */
  close(graceMs?: number): Promise<void>;
  /** Whether a browser context is one of the crawl's (undefined: the browser is Netweir's, every context is). */
  ownsContext?(contextId: string | undefined): boolean;
  /** Marks a context the crawl made as its own, before any tab is opened in it (a browser elsewhere needs this). */
  adoptContext?(contextId: string): void;
}

export interface LaunchOptions {
  protocolTimeoutMs: number;
  /** Told of each popup closed. */
  onPopup?(popup: ClosedPopup): void;
}

/** The last bytes of Chromium's stderr, for the message when it fails to start. */
function tail(child: ChildProcess): () => string {
  let text = "";
  child.stderr?.on("data", (chunk) => {
    text = (text + chunk).slice(-2000);
  });
  return () => text.trim().split("\n").slice(-3).join(" | ");
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
    owned: true,
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
