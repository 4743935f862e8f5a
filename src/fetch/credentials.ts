/**
 * Which basic-auth credentials go with a request, and to which hosts. A request's own credentials (its `auth`, or
 * meta `http_user`/`http_pass`) belong to the host it was made for; crawl-wide `httpAuth` entries belong to the host
 * they name and its subdomains. Neither may follow a redirect to another host: that is how passwords leak.
 */
import { hostInDomain } from "../spider/host_in_domain.ts";
import type { Request, RequestAuth } from "../spider/request.ts";

/** Credentials keyed by host name, as the `httpAuth` setting holds them. */
export type AuthMap = Record<string, RequestAuth>;

/** The request's own credentials: `auth`, else meta `http_user` / `http_pass`, else none. */
export function requestCredentials(request: Request): RequestAuth | undefined {
  if (request.auth) return request.auth;
  const user = request.meta.http_user;
  const password = request.meta.http_pass;
  if (typeof user === "string" && user !== "") {
    return { user, password: typeof password === "string" ? password : "" };
  }
  return undefined;
}

/**
 * The crawl-wide credentials for a URL's host: an entry for `host:port`, the host itself, or the nearest parent
 * domain ("example.com" covers "a.example.com", never "badexample.com").
 */
export function crawlCredentials(map: AuthMap, url: URL): RequestAuth | undefined {
  const keys = Object.keys(map);
  if (keys.length === 0) return undefined;
  const byName = new Map(keys.map((key) => [key.toLowerCase().replace(/\.$/, ""), map[key]]));
  const host = url.hostname.toLowerCase();
  if (url.port && byName.has(`${host}:${url.port}`)) return byName.get(`${host}:${url.port}`);
  // The nearest parent is the longest name that holds the host (an IP address is held only by itself).
  let nearest: string | undefined;
  for (const name of byName.keys()) {
    if (hostInDomain(host, name) && (nearest === undefined || name.length > nearest.length)) nearest = name;
  }
  return nearest === undefined ? undefined : byName.get(nearest);
}

/**
 * The credentials to send to `url`, one hop of fetching `request` (which was first sent to `origin`). The request's
 * own credentials go only to its original host, and never from https down to http; after that, the crawl-wide
 * entry for the hop's own host.
 */
export function credentialsFor(request: Request, origin: URL, url: URL, map: AuthMap): RequestAuth | undefined {
  const own = requestCredentials(request);
  if (own) {
    const sameHost = url.hostname === origin.hostname;
    const downgraded = origin.protocol === "https:" && url.protocol !== "https:";
    return sameHost && !downgraded ? own : undefined;
  }
  return crawlCredentials(map, url);
}

/** The `Authorization` header value for basic auth, UTF-8 encoded as RFC 7617 recommends. */
export function basicAuthorization(auth: RequestAuth): string {
  const bytes = new TextEncoder().encode(`${auth.user}:${auth.password}`);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}
