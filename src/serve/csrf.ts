/**
 * What lets the dashboard's forms through when every other browser request is refused (security.ts): a form post is
 * let past the Origin check only when it goes to a dashboard action (`/ui/...`), its Origin is the service's own (the
 * Host it was sent to, which the rebinding check has vetted), and the browser does not say it came from another site.
 * The action then needs a token bound to the browser's session: an HMAC, under a key made when the app starts and
 * kept nowhere else, of a random session id the service gave that browser in a cookie (HttpOnly, SameSite=Strict) and
 * of the login's username. A page elsewhere can neither read the token (the same-origin policy) nor compute it (the
 * key), and a token copied from one session is worthless in another.
 */
import { Buffer } from "node:buffer";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** Where the dashboard's actions are posted; only these may carry an Origin. */
export const ACTION_PREFIX = "/ui/";

/** The session cookie's name and the form field carrying the token. */
export const SESSION_COOKIE = "netweir_serve_session";
export const TOKEN_FIELD = "csrf";

/** A session id or token: base64url, 43 characters for 32 bytes. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64url");
}

/** The session cookie's value in a Cookie header, when it is there and well-formed. */
export function sessionOf(cookieHeader: string | undefined): string | undefined {
  for (const part of (cookieHeader ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    if (TOKEN_SHAPE.test(value)) return value;
  }
  return undefined;
}

/** The Set-Cookie value for a new session: no Max-Age, so it lasts as long as the browser session. */
export function sessionCookie(session: string): string {
  return `${SESSION_COOKIE}=${session}; Path=/; HttpOnly; SameSite=Strict`;
}

/**
 * Whether a request with an Origin header is a dashboard form post from the service's own pages: POST, to an action,
 * its Origin `http://` or `https://` and the Host it was sent to (or, behind a proxy that rewrites Host, the one
 * X-Forwarded-Host names), and no `Sec-Fetch-Site` other than same-origin. `Origin: null` (sandboxed frames, some
 * redirects) is never the service's own. A page elsewhere can't forge X-Forwarded-Host: a form can't set headers, and
 * a fetch that sets one is preflighted with its Origin, which is refused.
 */
export function isOwnFormPost(request: Request, host: string): boolean {
  if (request.method !== "POST") return false;
  if (!new URL(request.url).pathname.startsWith(ACTION_PREFIX)) return false;
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin") return false;
  const origin = request.headers.get("origin") ?? "";
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  const own = (parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.origin === origin;
  // One proxy's X-Forwarded-Host: a list ("a, b") is a chain this check does not try to read.
  const forwarded = request.headers.get("x-forwarded-host");
  const hosts = [host, ...(forwarded !== null && !forwarded.includes(",") ? [forwarded] : [])];
  return own && hosts.some((one) => parsed.host.toLowerCase() === one.trim().toLowerCase());
}

/** Makes and checks the tokens of one app: its key is its own, so two services (or two apps) share nothing. */
export class CsrfTokens {
  readonly #key = randomBytes(32);

  /** A new random session id, for a browser that sent none. */
  newSession(): string {
    return base64url(randomBytes(32));
  }

  /** The token of a session and login (the username; "" without a login). */
  token(session: string, username: string): string {
    const mac = createHmac("sha256", this.#key).update(`${session}\n${username}`, "utf8").digest();
    return base64url(mac);
  }

  /** Whether `given` is the token of this session and login, compared in time that does not depend on the bytes. */
  check(given: string | null, session: string | undefined, username: string): boolean {
    if (given === null || session === undefined || !TOKEN_SHAPE.test(given)) return false;
    const expected = Buffer.from(this.token(session, username));
    return timingSafeEqual(expected, Buffer.from(given));
  }
}
