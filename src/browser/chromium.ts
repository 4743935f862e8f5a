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
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import puppeteer, { type Browser } from "puppeteer-core";
import { PipeTransport } from "./pipe_transport.ts";

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

export async function launchChromium(executable: string, options: { protocolTimeoutMs: number }): Promise<Chromium> {
  const profile = await mkdtemp(join(tmpdir(), "netweir-chromium-"));
  // puppeteer's defaults end with about:blank, the one tab headless Chromium opens with; the features given here are
  // merged into its own --disable-features.
  const args = puppeteer.defaultArgs({
    headless: true,
    userDataDir: profile,
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
  const removeProfile = () => rm(profile, { recursive: true, force: true }).catch(() => {});
  exited.then(removeProfile);
  const failedToStart = new Promise<never>((_, reject) => {
    child.once("error", (error) => reject(new Error(`could not start ${executable}: ${error.message}`)));
    exited.then(() => reject(new Error(`${executable} exited at start: ${stderr() || "no message"}`)));
  });
  failedToStart.catch(() => {});
  const transport = new PipeTransport(child.stdio[3] as Writable, child.stdio[4] as Readable);
  let browser: Browser;
  try {
    browser = await Promise.race([
      puppeteer.connect({ transport, defaultViewport: null, protocolTimeout: options.protocolTimeoutMs }),
      failedToStart,
    ]);
    // The tab Chromium opens with is never used: its renderer (16-20 MB) would sit there for the whole crawl. Headless
    // Chromium keeps running with no tab open.
    for (const page of await browser.pages()) await page.close();
  } catch (error) {
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
