/**
 * A real HTTP site on 127.0.0.1 for tests: the book shop under /shop/, and routes for every behaviour a crawler
 * must cope with (redirects, slow and hanging answers, status codes, flaky endpoints, cookies, basic auth,
 * compression, traps...). Every request it receives is logged, so a test can assert what was fetched and how often.
 *
 * ```ts
 * const site = await startFixtureSite({ books: 40 });
 * try {
 *   const response = await fetch(site.url + "shop/");
 *   assert.equal(site.hits("/shop/"), 1);
 * } finally {
 *   await site.close();
 * }
 * ```
 */
import { runtime } from "../../src/runtime/mod.ts";
import * as http from "./fixture_routes.ts";
import * as pages from "./fixture_pages.ts";
import { encodedPage } from "./fixture_encodings.ts";
import type { Route, RouteContext } from "./fixture_routes.ts";

export interface FixtureSiteOptions {
  /** Books in the shop under /shop/ (default 100). */
  books?: number;
  /** The loopback address to listen on (default 127.0.0.1; 127.0.0.2 makes a second host on the same machine). */
  hostname?: string;
  /** The port to listen on (default: a free one). */
  port?: number;
  /** The text of /robots.txt (default: everything allowed); null answers 404. */
  robots?: string | null;
  /** The login /auth/basic accepts (default user / pass). */
  basicAuth?: { user: string; password: string };
}

/** One request the site received. */
export interface RecordedRequest {
  method: string;
  /** Path and query, as `/slow?ms=10`. */
  path: string;
  headers: Headers;
  /** When it arrived (epoch ms). */
  at: number;
}

/** A running fixture site. */
export interface FixtureSite {
  /** `http://127.0.0.1:PORT/`. */
  url: string;
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  port: number;
  /** Every request received so far, in order. */
  requests: RecordedRequest[];
  /**
   * How many requests were received for `path`: with a query (`/slow?ms=5`) the path and query must match exactly;
   * without one, any query matches (`/flaky/a` counts `/flaky/a?fail=2`).
   */
  hits(path: string): number;
  /** Lets every /gated/ answer go, those waiting and those still to come. */
  openGate(): void;
  /** Stops the server; answers still pending (/hang, /slow, /gated/) are ended first. */
  close(): Promise<void>;
}

/** The route table: the first pattern that matches the path answers; its groups are the route's `params`. */
const ROUTES: Array<[RegExp, Route]> = [
  [/^\/$/, pages.home],
  [/^\/robots\.txt$/, pages.robots],
  [/^\/shop$/, () => http.redirect("/shop/", 301)],
  [/^\/shop\/.*$/, pages.shop],
  [/^\/redirect\/(\d+)$/, http.redirectChain],
  [/^\/redirect-loop$/, http.redirectLoop],
  [/^\/redirect-to$/, http.redirectTo],
  [/^\/see-other$/, http.seeOther],
  [/^\/echo$/, http.echo],
  [/^\/slow$/, http.slow],
  [/^\/hang$/, http.hang],
  [/^\/gated(?:\/.*)?$/, http.gated],
  [/^\/status\/(\d{3})$/, http.status],
  [/^\/challenge\/(\d{3})$/, http.challenge],
  [/^\/empty$/, http.empty],
  [/^\/flaky\/([^/]+)$/, http.flaky],
  [/^\/cookies\/set$/, http.setCookies],
  [/^\/cookies\/show$/, http.showCookies],
  [/^\/auth\/basic$/, http.basicAuth],
  [/^\/gzip$/, http.compressed("gzip")],
  [/^\/deflate$/, http.compressed("deflate")],
  [/^\/brotli$/, http.compressed("br")],
  [/^\/big$/, http.big],
  [/^\/json$/, http.jsonDocument],
  [/^\/links$/, pages.links],
  [/^\/links\/.+$/, pages.linkTarget],
  [/^\/trap(?:\/.*)?$/, pages.trap],
  [/^\/calendar$/, pages.calendar],
  [/^\/latin1$/, pages.latin1],
  [/^\/encoded\/.+$/, encodedPage],
  [/^\/markup$/, pages.markup],
  [/^\/plain-links$/, pages.plainLinks],
];

/** A wait that ends early, without leaving a timer, when the site closes. */
function waiter(closing: AbortSignal): (ms: number) => Promise<boolean> {
  return (ms) =>
    new Promise<boolean>((resolve) => {
      if (closing.aborted) return resolve(false);
      const finish = (elapsed: boolean) => {
        clearTimeout(timer);
        closing.removeEventListener("abort", onAbort);
        resolve(elapsed);
      };
      const onAbort = () => finish(false);
      const timer = Number.isFinite(ms) ? setTimeout(() => finish(true), ms) : undefined;
      closing.addEventListener("abort", onAbort);
    });
}

/** Starts a fixture site on a free port of 127.0.0.1. */
export async function startFixtureSite(options: FixtureSiteOptions = {}): Promise<FixtureSite> {
  const books = options.books ?? 100;
  if (!Number.isInteger(books) || books < 0) throw new RangeError(`books must be a whole number, got ${books}`);
  const closing = new AbortController();
  const requests: RecordedRequest[] = [];
  const flakyHits = new Map<string, number>();
  const robots = options.robots === undefined ? pages.DEFAULT_ROBOTS : options.robots;
  const basicAuth = options.basicAuth ?? { user: "user", password: "pass" };
  const gate = Promise.withResolvers<void>();

  const handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    requests.push({
      method: request.method,
      path: url.pathname + url.search,
      headers: new Headers(request.headers),
      at: Date.now(),
    });
    for (const [pattern, route] of ROUTES) {
      const match = pattern.exec(url.pathname);
      if (!match) continue;
      const context: RouteContext = {
        request,
        url,
        params: match.slice(1),
        books,
        robots,
        basicAuth,
        flakyHits,
        closing: closing.signal,
        // Not request.signal: Deno warns on its use, and close() ends every wait anyway.
        wait: waiter(closing.signal),
        gate: gate.promise,
      };
      try {
        return await route(context);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return http.text(`${message}\n`, error instanceof RangeError ? 400 : 500);
      }
    }
    return http.text(`no route for ${url.pathname}\n`, 404);
  };

  const listener = await runtime.listen(handle, { hostname: options.hostname ?? "127.0.0.1", port: options.port ?? 0 });
  const origin = `http://${options.hostname ?? "127.0.0.1"}:${listener.port}`;
  let closed: Promise<void> | undefined;
  return {
    url: `${origin}/`,
    origin,
    port: listener.port,
    requests,
    hits(path) {
      if (path.includes("?")) return requests.filter((request) => request.path === path).length;
      return requests.filter((request) => request.path.split("?")[0] === path).length;
    },
    openGate() {
      gate.resolve();
    },
    close() {
      closed ??= (async () => {
        closing.abort();
        await listener.close();
      })();
      return closed;
    },
  };
}
