/**
 * What keeps `netweir serve` private: requests only a web page would send are refused (an Origin header, but on the
 * dashboard's own form posts, csrf.ts; while listening on a loopback address, a Host that is not a loopback name,
 * which is what DNS rebinding looks like), and HTTP basic auth when a username and password are set. Applied before
 * every route, the HTML pages included.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { jsonAnswer } from "./answer.ts";
import { isOwnFormPost } from "./csrf.ts";

/** The credentials basic auth asks for. */
export interface BasicAuth {
  username: string;
  password: string;
}

export interface SecurityOptions {
  /** Whether the service listens on a loopback address (then only loopback Host names are answered). */
  loopback: boolean;
  auth?: BasicAuth;
  /** The node_name of refusals. */
  nodeName: string;
}

const REALM = 'Basic realm="netweir serve", charset="UTF-8"';

/**
 * Whether a Host header (with or without a port) names this machine: localhost, 127.x.y.z or [::1]. A name may end in
 * the root's dot (`localhost.`, as a fully qualified name): browsers take `localhost.` as loopback themselves and
 * `127.0.0.1.` as the address, so no web page can point either anywhere else.
 */
export function isLoopbackHost(host: string): boolean {
  const lower = host.trim().toLowerCase();
  if (/^\[::1\](?::\d{1,5})?$/.test(lower)) return true;
  const name = lower.replace(/:\d{1,5}$/, "").replace(/\.$/, "");
  if (name === "localhost") return true;
  const ipv4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(name);
  return ipv4 !== null && ipv4.slice(1).every((part) => Number(part) <= 255);
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/** The username and password of a `Basic` Authorization header, or undefined when there is none or it is garbled. */
export function parseBasic(header: string | undefined): BasicAuth | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? "");
  if (!match) return undefined;
  let decoded: string;
  try {
    decoded = new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(atob(match[1]), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** A checker comparing given credentials with the configured ones in time that does not depend on where they differ. */
function credentialsChecker(auth: BasicAuth): (given: BasicAuth | undefined) => boolean {
  // Digests have one length whatever was typed, which timingSafeEqual needs; the secret itself is not kept twice.
  const user = sha256(auth.username);
  const pass = sha256(auth.password);
  const nothing = sha256("");
  return (given) => {
    const userOk = timingSafeEqual(user, given ? sha256(given.username) : nothing);
    const passOk = timingSafeEqual(pass, given ? sha256(given.password) : nothing);
    // Both compared every time: which one was wrong must not show in the timing either.
    return given !== undefined && userOk && passOk;
  };
}

/**
 * Whether the dashboard's forms may be used: on a loopback address (the Host check stops rebound pages) or with a
 * login (a rebound page's browser has none for its name). With --insecure-no-auth on another address, a page that
 * rebinds its name to the service would be same-origin with it, read a token and post; so there are no forms there.
 */
export function dashboardAllowed(options: Pick<SecurityOptions, "loopback" | "auth">): boolean {
  return options.loopback || options.auth !== undefined;
}

function refuse(status: 403, message: string, nodeName: string): Response {
  return jsonAnswer({ node_name: nodeName, status: "error", message }, status);
}

/**
 * A missing or wrong login, answered as scrapyd (twisted.web's guard) answers it: 401, the body `Unauthorized`, and
 * the challenge. Clients that test for scrapyd's wording (and browsers, which then ask for a login) see the same.
 */
function unauthorized(): Response {
  return new Response("Unauthorized", {
    status: 401,
    headers: { "content-type": "text/plain; charset=utf-8", "WWW-Authenticate": REALM },
  });
}

/**
 * The middleware: Origin refused (403), rebinding Host refused while loopback (403), then basic auth when
 * configured (401 `Unauthorized` with WWW-Authenticate). Messages never contain the password, given or configured.
 */
export function security(options: SecurityOptions): MiddlewareHandler {
  const check = options.auth ? credentialsChecker(options.auth) : undefined;
  // On an address others reach, without a login, a rebound page would pass as the service's own: no exception there.
  const formsAllowed = dashboardAllowed(options);
  return async (c, next) => {
    const host = c.req.header("host") ?? new URL(c.req.url).host;
    // The dashboard's own form posts carry the service's Origin; they still need their token (dashboard_routes.ts).
    if (c.req.header("origin") !== undefined && !(formsAllowed && isOwnFormPost(c.req.raw, host))) {
      return refuse(403, "requests from web pages (with an Origin header) are refused", options.nodeName);
    }
    if (options.loopback) {
      if (!isLoopbackHost(host)) {
        return refuse(
          403,
          "this service listens on a loopback address and answers only requests addressed to localhost, " +
            "127.0.0.1 or [::1] (another host name is what DNS rebinding looks like)",
          options.nodeName,
        );
      }
    }
    if (check && !check(parseBasic(c.req.header("authorization")))) {
      return unauthorized();
    }
    await next();
    // Logs and items are served as they are: a browser must never guess they are HTML.
    c.header("X-Content-Type-Options", "nosniff");
  };
}
