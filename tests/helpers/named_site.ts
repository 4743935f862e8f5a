/**
 * One HTTP server on 127.0.0.1 that is many sites by name: `shop-1.test`, `shop-2.test`, ... all point at it (through
 * a test's DNS server, dns_server.ts), and the Host header says which site a request is for. Each site is a chain of
 * pages, /p/0 linking to /p/1 and so on, and every answer says `Connection: close`, so each page costs a new
 * connection, and so a lookup of its host. It records the order in which it served each host's pages.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

export interface NamedSite {
  readonly port: number;
  /** `host page` for each page served, in order (robots.txt included, as `host robots.txt`). */
  readonly served: string[];
  close(): Promise<void>;
}

/** Serves chains of `pages` pages on a free port, for any host name. */
export async function startNamedSite(pages: number): Promise<NamedSite> {
  const served: string[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const host = (request.headers.host ?? "").replace(/:\d+$/, "");
    response.setHeader("connection", "close");
    if (request.url === "/robots.txt") {
      served.push(`${host} robots.txt`);
      response.writeHead(404).end();
      return;
    }
    const page = Number(/^\/p\/(\d+)$/.exec(request.url ?? "")?.[1] ?? NaN);
    if (!(page >= 0 && page < pages)) {
      response.writeHead(404).end();
      return;
    }
    served.push(`${host} ${page}`);
    const next = page + 1 < pages ? `<a href="/p/${page + 1}">next</a>` : "";
    response.writeHead(200, { "content-type": "text/html" }).end(
      `<html><body><h1>${host} ${page}</h1>${next}</body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    served,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
