/**
 * A browser running elsewhere (`browser_endpoint`): finding its DevTools WebSocket and checking that a browser answers
 * there. Free of puppeteer, so the crawl can check the endpoint at start without loading the browser's modules; it
 * uses only `fetch` and `WebSocket`, which Deno and Node 22 both have.
 */
import { SettingsError } from "../errors.ts";

/** A DevTools endpoint with nothing answering, or something that is not a browser's DevTools. */
export class BrowserEndpointError extends Error {
  override name = "BrowserEndpointError";
}

/** The endpoint as messages show it: scheme, host and port only (a path or query may carry a token). */
export function shownEndpoint(endpoint: string): string {
  try {
    const url = new URL(endpoint);
    return `${url.protocol}//${url.host}`;
  } catch {
    return "browser_endpoint";
  }
}

/** The HTTP address of an endpoint's host and port, where Chromium answers /json/version. */
function httpBase(endpoint: URL): string {
  const scheme = endpoint.protocol === "wss:" || endpoint.protocol === "https:" ? "https:" : "http:";
  return `${scheme}//${endpoint.host}`;
}

/** Why a connection failed, in a few words: the cause's code when there is one (ECONNREFUSED), else its message. */
function why(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if (error instanceof Error && error.name === "TimeoutError") return "no answer in time";
  if (cause?.code) return cause.code === "ECONNREFUSED" ? "connection refused" : cause.code;
  const message = (cause?.message ?? (error as Error)?.message ?? String(error)).split("\n")[0];
  return /refused/i.test(message) ? "connection refused" : message;
}

/** The browser's WebSocket address, as its /json/version says. */
async function fromVersion(base: string, timeoutMs: number): Promise<string> {
  const shown = shownEndpoint(base);
  let response: Response;
  try {
    response = await fetch(`${base}/json/version`, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    throw new BrowserEndpointError(`no browser answers at ${shown}: ${why(error)}`);
  }
  const text = await response.text().catch(() => "");
  let found: unknown;
  try {
    found = JSON.parse(text);
  } catch {
    // Left as undefined: what answered is not DevTools.
  }
  const url = (found as { webSocketDebuggerUrl?: unknown } | undefined)?.webSocketDebuggerUrl;
  if (!response.ok || typeof url !== "string") {
    throw new BrowserEndpointError(
      `${shown} is not a Chrome DevTools endpoint: /json/version answered ${response.status} without a ` +
        "webSocketDebuggerUrl",
    );
  }
  return url;
}

/**
 * The WebSocket addresses to try for an endpoint, in order. An HTTP endpoint is resolved through /json/version each
 * time (a restarted browser has a new address); a WebSocket one is tried as given, then through /json/version on its
 * host and port, which finds the browser again after it was restarted there.
 */
export async function endpointAddresses(endpoint: string, timeoutMs: number): Promise<string[]> {
  const url = new URL(endpoint);
  if (url.protocol === "http:" || url.protocol === "https:") return [await fromVersion(httpBase(url), timeoutMs)];
  return [endpoint];
}

/** The address through /json/version on the endpoint's host and port, for a WebSocket address that stopped working. */
export function resolveAgain(endpoint: string, timeoutMs: number): Promise<string> {
  return fromVersion(httpBase(new URL(endpoint)), timeoutMs);
}

/**
 * Asks the browser at `address` (a DevTools WebSocket) for its version over a connection of its own, closed after.
 * Resolves with the browser's product name; rejects with a BrowserEndpointError saying what answered instead.
 */
export function browserVersion(address: string, timeoutMs: number): Promise<string> {
  const shown = shownEndpoint(address);
  return new Promise((resolve, reject) => {
    let socket: WebSocket;
    try {
      socket = new WebSocket(address);
    } catch (error) {
      reject(new BrowserEndpointError(`cannot connect to ${shown}: ${why(error)}`));
      return;
    }
    const done = (error?: BrowserEndpointError, product?: string) => {
      clearTimeout(timer);
      socket.onopen =
        socket.onmessage =
        socket.onerror =
        socket.onclose =
          null;
      socket.close();
      if (error) reject(error);
      else resolve(product!);
    };
    const timer = setTimeout(
      () => done(new BrowserEndpointError(`${shown} did not answer as a Chrome DevTools endpoint in time`)),
      timeoutMs,
    );
    socket.onopen = () => socket.send(JSON.stringify({ id: 1, method: "Browser.getVersion" }));
    socket.onmessage = (event) => {
      let answer: { id?: number; result?: { product?: unknown } } | undefined;
      try {
        answer = JSON.parse(String(event.data));
      } catch {
        // Not JSON: said below.
      }
      if (answer?.id !== 1) return done(new BrowserEndpointError(`${shown} is not a Chrome DevTools endpoint`));
      const product = answer.result?.product;
      if (typeof product !== "string") {
        return done(
          new BrowserEndpointError(`${shown} is not a browser's DevTools endpoint (Browser.getVersion failed)`),
        );
      }
      done(undefined, product);
    };
    socket.onerror = () => done(new BrowserEndpointError(`no Chrome DevTools endpoint answers at ${shown}`));
    socket.onclose = () => done(new BrowserEndpointError(`${shown} closed the connection: not a DevTools endpoint`));
  });
}

/** How long the start-of-crawl check waits for the browser elsewhere to answer. */
const START_CHECK_MS = 10_000;

/**
 * At the start of a crawl given a `browser_endpoint`: a browser must answer there, or the crawl stops before it
 * fetches anything, with a SettingsError (exit 2) naming the setting.
 */
export async function checkEndpointAtStart(settings: { browserEndpoint: string | null }): Promise<void> {
  if (settings.browserEndpoint === null) return;
  try {
    const [address] = await endpointAddresses(settings.browserEndpoint, START_CHECK_MS);
    await browserVersion(address, START_CHECK_MS);
  } catch (error) {
    if (error instanceof BrowserEndpointError) {
      throw new SettingsError(`browser_endpoint: ${error.message}`, { setting: "browser_endpoint" });
    }
    throw error;
  }
}
