/**
 * Request fingerprints (C4): one function, used by the duplicate filter, the cache, deltafetch and the Redis queue.
 * method + canonical URL + a hash of the body, so `http://A.com:80/p?b=2&a=1#x` and `http://a.com/p?a=1&b=2` are
 * the same request.
 */
import { sha1Hex } from "./sha1.ts";

/** The URL with scheme and host lower-cased, the default port and fragment dropped and the query sorted. */
export function canonicalUrl(url: string | URL): string {
  const parsed = new URL(url); // WHATWG URL already lower-cases scheme and host and drops default ports
  // Nothing to drop or sort: the parsed URL is canonical already (the common case, and the cheap one).
  if (!parsed.href.includes("?") && !parsed.href.includes("#")) return parsed.href;
  parsed.hash = "";
  // Always rewritten, even when empty: setting "" drops a bare "?", so `/p?` and `/p` are the same request.
  const pairs = [...parsed.searchParams.entries()];
  pairs.sort(([a, av], [b, bv]) => a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0);
  parsed.search = new URLSearchParams(pairs).toString();
  return parsed.href;
}

/** A request's fingerprint: 40 hex characters (SHA-1). */
export function fingerprint(request: { method: string; url: string; body?: string }): string {
  // sha1.ts rather than node:crypto: a push of a million URLs computes a million of these, and node:crypto's
  // native buffers made up half of that push's memory.
  const body = request.body ? sha1Hex(request.body) : "";
  return sha1Hex(`${request.method.toUpperCase()}\n${canonicalUrl(request.url)}\n${body}`);
}
