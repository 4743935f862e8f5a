/**
 * A Chromium running elsewhere (`browser_endpoint`), driven over its DevTools WebSocket. The crawl never owns it: it
 * renders in browser contexts of its own (never in the browser's tabs from before, which it does not even attach
 * to), and at the end it disposes of those contexts and disconnects, leaving the browser running as it found it.
 */
import puppeteer from "puppeteer-core";
import type { Chromium, LaunchOptions } from "./chromium.ts";
import { BrowserEndpointError, endpointAddresses, resolveAgain, shownEndpoint } from "./endpoint.ts";
import { PopupGuard } from "./popup_guard.ts";
import { WebSocketTransport } from "./ws_transport.ts";

/** A browser elsewhere that could not be reached within the time given: it may be back later. */
export class BrowserConnectError extends Error {
  override name = "BrowserConnectError";
}

/** How long one attempt to reach the endpoint may take (a loaded machine's Chromium answers /json/version slowly). */
const ATTEMPT_MS = 10_000;
/** The pause between two attempts while the browser is away. */
const RETRY_PAUSE_MS = 500;

export interface ConnectOptions extends LaunchOptions {
  /** How long to keep trying while nothing answers (a browser restarting), in ms; 0 tries once. */
  waitMs: number;
}

/** Opens a transport to the browser at `endpoint`, trying again until `waitMs` has passed. */
async function reach(endpoint: string, waitMs: number): Promise<WebSocketTransport> {
  const until = Date.now() + waitMs;
  for (;;) {
    let last: unknown;
    try {
      const [address] = await endpointAddresses(endpoint, ATTEMPT_MS);
      try {
        return await WebSocketTransport.open(address, ATTEMPT_MS);
      } catch (error) {
        last = error;
        // A WebSocket address stops working when the browser restarts (its id changes): ask its port for the new one.
        if (address === endpoint) {
          return await WebSocketTransport.open(await resolveAgain(endpoint, ATTEMPT_MS), ATTEMPT_MS);
        }
        throw error;
      }
    } catch (error) {
      last = error ?? last;
    }
    if (Date.now() + RETRY_PAUSE_MS > until) {
      const reason = last instanceof BrowserEndpointError ? last.message : (last as Error)?.message ?? String(last);
      throw new BrowserConnectError(`could not reach the browser at ${shownEndpoint(endpoint)}: ${reason}`);
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
  }
}

export async function connectChromium(endpoint: string, options: ConnectOptions): Promise<Chromium> {
  const transport = await reach(endpoint, options.waitMs);
  const contexts = new Set<string>();
  const ownsContext = (contextId: string | undefined) => contextId !== undefined && contexts.has(contextId);
  const popups = new PopupGuard(transport, { onPopup: options.onPopup, ownsContext });
  let browser;
  try {
    browser = await puppeteer.connect({
      transport,
      defaultViewport: null,
      protocolTimeout: options.protocolTimeoutMs,
      targetFilter: (target) => popups.keep(target),
    });
    await popups.watch(browser);
  } catch (error) {
    transport.close();
    throw new BrowserConnectError(
      `the browser at ${shownEndpoint(endpoint)} did not take the crawl's connection: ${(error as Error).message}`,
    );
  }
  const connected = browser;
  const exited = new Promise<string | null>((resolve) => {
    if (!connected.connected) resolve(null);
    else connected.once("disconnected", () => resolve(null));
  });
  exited.then(() => popups.clear());
  return {
    browser: connected,
    pid: undefined,
    owned: false,
    exited,
    ownsContext,
    adoptContext: (contextId: string) => contexts.add(contextId),
    close: async (graceMs = 5000) => {
      if (connected.connected) {
        // The crawl's contexts go, with their tabs and storage; the browser's own tabs and contexts stay.
        const disposing = Promise.all(
          connected.browserContexts().filter((context) => context.id && contexts.has(context.id))
            .map((context) => context.close().catch(() => {})),
        );
        await Promise.race([disposing, new Promise((resolve) => setTimeout(resolve, graceMs))]);
        await connected.disconnect().catch(() => {});
      }
      await exited;
    },
  };
}
