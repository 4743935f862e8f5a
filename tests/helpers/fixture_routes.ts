/**
 * The fixture site's HTTP behaviours: redirects, echo, slow, gated and hanging answers, status codes, flaky endpoints,
 * cookies, basic auth, compression, big bodies and JSON. The HTML pages (shop, links, traps) are in
 * fixture_pages.ts; the server, its request log and its route table in fixture_site.ts.
 */
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";

/** What a route handler gets: the request, its URL, the site's state, and a way to wait that ends on close. */
export interface RouteContext {
  request: Request;
  url: URL;
  /** The parts of the path the route's pattern captured. */
  params: string[];
  books: number;
  robots: string | null;
  basicAuth: { user: string; password: string };
  /** Hits so far of each /flaky/KEY, this site only. */
  flakyHits: Map<string, number>;
  /** Aborted when the site closes. */
  closing: AbortSignal;
  /**
   * Waits `ms` milliseconds (forever for Infinity); true when the time passed, false when the site closed first.
   * A client that gives up does not end the wait; close() does, so no timer is left behind.
   */
  wait(ms: number): Promise<boolean>;
  /** Resolves once the test opens the site's gate (FixtureSite.openGate); /gated/ answers wait for it. */
  gate: Promise<void>;
}

/** A route: answers one request. */
export type Route = (context: RouteContext) => Response | Promise<Response>;

/** A JSON response. */
export function json(value: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers);
  headers.set("content-type", "application/json");
  return new Response(JSON.stringify(value, null, 2) + "\n", { ...init, headers });
}

/** A plain-text response. */
export function text(body: string, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { "content-type": "text/plain; charset=utf-8", ...headers } });
}

/** A redirect to `location`. */
export function redirect(location: string, status: number): Response {
  return new Response(null, { status, headers: { location } });
}

/** A whole number from the query, or `fallback` when absent; RangeError (answered as 400) when malformed. */
function intParam(url: URL, name: string, fallback: number): number {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new RangeError(`${name} must be a whole number, got ${raw}`);
  return value;
}

const REDIRECT_CODES = new Set([301, 302, 303, 307, 308]);

function redirectCode(url: URL, fallback: number): number {
  const code = intParam(url, "status", fallback);
  if (!REDIRECT_CODES.has(code)) throw new RangeError(`status must be a redirect code, got ${code}`);
  return code;
}

/** `/echo`: what the server received, as JSON. */
export const echo: Route = async ({ request, url }) => {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => headers[name] = value);
  return json({
    method: request.method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers,
    body: await request.text(),
  });
};

/** `/redirect/N`: a chain of N redirects ending at /echo (`?status=307` picks the code, kept along the chain). */
export const redirectChain: Route = (context) => {
  const hops = Number(context.params[0]);
  if (hops === 0) return echo(context);
  const code = redirectCode(context.url, 302);
  const query = context.url.searchParams.has("status") ? `?status=${code}` : "";
  return redirect(hops === 1 ? `/echo${query}` : `/redirect/${hops - 1}${query}`, code);
};

/** `/redirect-loop`: redirects to itself, for ever. */
export const redirectLoop: Route = () => redirect("/redirect-loop", 302);

/** `/redirect-to?url=U&status=301`: one redirect to any URL, relative or absolute, on this host or not. */
export const redirectTo: Route = ({ url }) => {
  const target = url.searchParams.get("url");
  if (!target) return text("url is required\n", 400);
  return redirect(target, redirectCode(url, 301));
};

/** `/see-other`: 303 to /echo, which turns a POST into a GET. */
export const seeOther: Route = () => redirect("/echo", 303);

/** `/slow?ms=N`: answers after N milliseconds (default 1000). */
export const slow: Route = async ({ url, wait }) => {
  const ms = intParam(url, "ms", 1000);
  const elapsed = await wait(ms);
  return elapsed ? text(`waited ${ms} ms\n`) : text("closing\n", 503);
};

/**
 * `/gated/ANYTHING`: answers once the test opens the site's gate, not after a time: a test of what a crawl does
 * while a site's answers are outstanding then holds however slow the machine is. A 503 if the site closes first.
 */
export const gated: Route = async ({ gate, closing }) => {
  const closed = new Promise<boolean>((resolve) => {
    if (closing.aborted) resolve(false);
    closing.addEventListener("abort", () => resolve(false), { once: true });
  });
  const opened = await Promise.race([gate.then(() => true), closed]);
  return opened ? text("the gate was opened\n") : text("closing\n", 503);
};

/** `/hang`: never answers; the site's close() ends it (with a 503 to whoever still waits). */
export const hang: Route = async ({ wait }) => {
  await wait(Infinity);
  return text("closing\n", 503);
};

/** `/status/CODE?retry_after=S`: answers with that status (and a Retry-After header when asked). */
export const status: Route = ({ url, params }) => {
  const code = Number(params[0]);
  if (code < 200 || code > 599) return text(`status must be 200 to 599, got ${code}\n`, 400);
  const headers: Record<string, string> = {};
  const retryAfter = url.searchParams.get("retry_after");
  if (retryAfter !== null) headers["retry-after"] = retryAfter;
  // 204, 205 and 304 may not have a body.
  const body = [204, 205, 304].includes(code) ? null : `status ${code}\n`;
  return new Response(body, { status: code, headers: { "content-type": "text/plain", ...headers } });
};

/** `/challenge/CODE`: a bot-protection interstitial ("Just a moment...") with status CODE, as a blocked crawler sees. */
export const challenge: Route = ({ params }) => {
  const body = `<!DOCTYPE html><html><head><title>Just a moment...</title></head>
<body><div id="challenge-form">Checking your browser before accessing the site.</div></body></html>`;
  return new Response(body, { status: Number(params[0]), headers: { "content-type": "text/html" } });
};

/** `/empty`: 200 with no body at all, where a page was due. */
export const empty: Route = () => new Response("", { status: 200, headers: { "content-type": "text/html" } });

/**
 * `/flaky/KEY?fail=N&code=503&retry_after=S`: the first N hits of KEY (default 1) answer `code`; later hits answer
 * 200 with `{ "key", "hits" }`. Each KEY counts on its own, per site.
 */
export const flaky: Route = ({ url, params, flakyHits }) => {
  const key = params[0];
  const hits = (flakyHits.get(key) ?? 0) + 1;
  flakyHits.set(key, hits);
  const fail = intParam(url, "fail", 1);
  const code = intParam(url, "code", 503);
  if (hits <= fail) {
    const retryAfter = url.searchParams.get("retry_after");
    const headers: Record<string, string> = retryAfter === null ? {} : { "retry-after": retryAfter };
    return json({ key, hits, failing: true }, { status: code, headers });
  }
  return json({ key, hits });
};

/** `/cookies/set?a=1&b=2`: one Set-Cookie header (Path=/) per query parameter. */
export const setCookies: Route = ({ url }) => {
  const headers = new Headers({ "content-type": "application/json" });
  for (const [name, value] of url.searchParams) headers.append("set-cookie", `${name}=${value}; Path=/`);
  return new Response(JSON.stringify({ set: Object.fromEntries(url.searchParams) }) + "\n", { headers });
};

/** `/cookies/show`: `{ "cookies": { name: value } }` from the Cookie header the client sent. */
export const showCookies: Route = ({ request }) => {
  const cookies: Record<string, string> = {};
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0) cookies[part.slice(0, at).trim()] = part.slice(at + 1).trim();
  }
  return json({ cookies });
};

/** `/auth/basic`: 401 with a Basic challenge unless the Authorization header carries the site's user and password. */
export const basicAuth: Route = ({ request, basicAuth }) => {
  const header = request.headers.get("authorization") ?? "";
  const match = /^Basic\s+(\S+)$/i.exec(header);
  let given = "";
  try {
    given = match ? atob(match[1]) : "";
  } catch {
    // Not base64: treated as no credentials.
  }
  if (given !== `${basicAuth.user}:${basicAuth.password}`) {
    return text("authentication required\n", 401, { "www-authenticate": 'Basic realm="fixture"' });
  }
  return json({ authenticated: true, user: basicAuth.user });
};

const COMPRESSED_HTML = "<!DOCTYPE html>\n<html><head><title>Compressed</title></head><body>\n" +
  "<h1>Compressed page</h1>\n" + "<p>This body was compressed by the fixture site.</p>\n".repeat(20) +
  '<a href="/echo">echo</a>\n</body></html>\n';

// Copied into a plain Uint8Array: a Node Buffer is not a body type the web Response accepts in the types.
const ENCODERS: Record<string, (bytes: Uint8Array) => Uint8Array<ArrayBuffer>> = {
  gzip: (bytes) => new Uint8Array(gzipSync(bytes)),
  deflate: (bytes) => new Uint8Array(deflateSync(bytes)),
  br: (bytes) => new Uint8Array(brotliCompressSync(bytes)),
};

/** A route answering an HTML page compressed with `encoding` (gzip, deflate or br), with Content-Encoding set. */
export function compressed(encoding: "gzip" | "deflate" | "br"): Route {
  return () =>
    new Response(ENCODERS[encoding](new TextEncoder().encode(COMPRESSED_HTML)), {
      headers: { "content-type": "text/html; charset=utf-8", "content-encoding": encoding },
    });
}

/** The HTML the compressed routes send, before compression. */
export const COMPRESSED_PAGE = COMPRESSED_HTML;

/**
 * `/big?bytes=N`: N bytes of `x` (default 1 MiB) with a Content-Length; `&chunked=1` streams them with no length,
 * so a client only finds out the size as it reads.
 */
export const big: Route = ({ url, closing }) => {
  const bytes = intParam(url, "bytes", 1024 * 1024);
  const headers = { "content-type": "application/octet-stream" };
  if (url.searchParams.get("chunked") !== "1") return new Response(new Uint8Array(bytes).fill(0x78), { headers });
  const chunk = new Uint8Array(64 * 1024).fill(0x78);
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // A client that stopped reading must not keep the site from closing.
      closing.addEventListener("abort", () => controller.error(new Error("fixture site closing")), { once: true });
    },
    pull(controller) {
      if (closing.aborted) return;
      const size = Math.min(chunk.length, bytes - sent);
      if (size > 0) controller.enqueue(chunk.slice(0, size));
      sent += size;
      if (sent >= bytes) controller.close();
    },
  });
  return new Response(body, { headers });
};

/** `/json`: a small JSON document served as application/json. */
export const jsonDocument: Route = () =>
  json({
    shop: "fixture",
    books: [
      { title: "The Paper Compass", price: 44.35 },
      { title: "The Distant Beekeeper", price: 16.23 },
    ],
    next: null,
  });
