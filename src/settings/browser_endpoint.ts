/**
 * The `browser_endpoint` setting's check: a DevTools address of a browser running elsewhere. Only its shape is checked
 * here; whether a browser answers there is checked when a crawl starts (src/browser/endpoint.ts).
 */

/** The schemes a DevTools endpoint may have: the browser's WebSocket, or its HTTP port (/json/version says the rest). */
const SCHEMES = ["ws:", "wss:", "http:", "https:"];

/** What is wrong with `value` as a DevTools endpoint, or undefined. Never repeats the value (it may hold a token). */
export function endpointProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be a URL: ws://HOST:PORT/devtools/browser/ID or http://HOST:PORT";
  }
  if (!SCHEMES.includes(url.protocol)) {
    return `must start with ws://, wss://, http:// or https:// (not ${url.protocol}//)`;
  }
  if (url.hostname === "") return "must name a host";
  return undefined;
}
