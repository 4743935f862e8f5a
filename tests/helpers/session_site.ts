/**
 * A site on 127.0.0.1 that logs in whoever comes without its cookie: the first answer to a request without `sid` sets
 * a new one (`u1`, `u2`, ...), and every page says which `sid` and user agent it was asked with. With `blockAfter`,
 * a login that has been served that many pages is answered 403 with a CAPTCHA page from then on (what the crawl takes
 * as blocked). `/down/...` always answers 503 (an error, not a block). `/chain/NAME/I` links to `/chain/NAME/I+1` up to `chainLength`; `/rendered/I` sets a cookie from its
 * script and loads `/pixel` (its user agent is noted too), for rendered requests.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";

/** One request the site answered. */
export interface SessionSiteHit {
  path: string;
  /** The `sid` cookie it came with, or the one it was given. */
  sid: string;
  /** Whether it came without one (and was logged in). */
  fresh: boolean;
  userAgent: string;
  /** The cookie header as sent. */
  cookie: string;
  /** The `x-token` header as sent. */
  token: string;
  blocked: boolean;
}

export interface SessionSite {
  url: string;
  hits: SessionSiteHit[];
  /** Logins made (sids handed out). */
  logins(): number;
  close(): Promise<void>;
}

export async function startSessionSite(
  options: { blockAfter?: number; chainLength?: number } = {},
): Promise<SessionSite> {
  const hits: SessionSiteHit[] = [];
  const served = new Map<string, number>();
  let logins = 0;
  const chainLength = options.chainLength ?? 4;
  const server: Server = createServer((request: IncomingMessage, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const cookie = request.headers.cookie ?? "";
    const known = /(?:^|;\s*)sid=([^;]+)/.exec(cookie)?.[1];
    const sid = known ?? `u${++logins}`;
    const headers: Record<string, string> = { "content-type": "text/html" };
    if (!known) headers["set-cookie"] = `sid=${sid}; Path=/; HttpOnly`;
    const blocked = options.blockAfter !== undefined && (served.get(sid) ?? 0) >= options.blockAfter &&
      url.pathname !== "/pixel";
    hits.push({
      path: url.pathname,
      sid,
      fresh: !known,
      userAgent: request.headers["user-agent"] ?? "",
      cookie,
      token: String(request.headers["x-token"] ?? ""),
      blocked,
    });
    if (url.pathname === "/robots.txt" || url.pathname === "/favicon.ico") {
      response.writeHead(404).end();
      return;
    }
    if (url.pathname === "/pixel") {
      response.writeHead(200, { "content-type": "image/gif" }).end();
      return;
    }
    if (url.pathname.startsWith("/down/")) {
      // An error, not a block: no challenge in it.
      response.writeHead(503, headers).end("temporarily down");
      return;
    }
    if (blocked) {
      response.writeHead(403, headers).end(`<h1>Verify you are human</h1><div class="g-recaptcha captcha"></div>`);
      return;
    }
    served.set(sid, (served.get(sid) ?? 0) + 1);
    const chain = /^\/chain\/([^/]+)\/(\d+)$/.exec(url.pathname);
    let more = "";
    if (chain && Number(chain[2]) + 1 < chainLength) {
      more = `<a class="next" href="/chain/${chain[1]}/${Number(chain[2]) + 1}">next</a>`;
    }
    if (url.pathname.startsWith("/rendered/")) {
      // The script's cookie shows which browser context the page is in: a context keeps it for its next page.
      more = `<img src="/pixel"><p id="js"></p><script>
        if (!document.cookie.includes("js=")) document.cookie = "js=" + Math.random().toString(36).slice(2) + "; path=/";
        document.getElementById("js").textContent = document.cookie.match(/js=([^;]+)/)[1];
      </script>`;
    }
    response.writeHead(200, headers).end(
      `<html><body><p id="sid">${sid}</p><p id="ua">${request.headers["user-agent"] ?? ""}</p>${more}</body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    hits,
    logins: () => logins,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
