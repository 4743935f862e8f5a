/**
 * An HTTPS server on 127.0.0.1 (Deno.serve, offering h2 and http/1.1 by ALPN) with a certificate for a NAME, not for
 * its address, so a client that checked the certificate against 127.0.0.1 would fail: each site is a chain of pages
 * (/p/0 links to /p/1 ...) as tests/helpers/named_site.ts serves them in plain HTTP. And the spider that follows
 * such chains from `-a site=URL,...`, as a file for `netweir crawl` (importing `moduleSpecifier`).
 */
import type { Certificates } from "./certificates.ts";
import { tlsServeOptions } from "./tls_server.ts";

export interface NamedTlsSite {
  readonly port: number;
  /** `host page` for each page served, in order. */
  readonly served: string[];
  close(): Promise<void>;
}

export function startNamedTlsSite(certs: Certificates, pages: number): NamedTlsSite {
  const served: string[] = [];
  const server = Deno.serve(tlsServeOptions(certs), (request) => {
    const url = new URL(request.url);
    const page = Number(/^\/p\/(\d+)$/.exec(url.pathname)?.[1] ?? NaN);
    if (!(page >= 0 && page < pages)) return new Response("not here", { status: 404 });
    served.push(`${url.hostname} ${page}`);
    const next = page + 1 < pages ? `<a href="/p/${page + 1}">next</a>` : "";
    return new Response(`<html><body>${next}</body></html>`, { headers: { "content-type": "text/html" } });
  });
  return { port: server.addr.port, served, close: () => server.shutdown() };
}

/** A spider following chains of pages from `-a site=URL[,URL...]`, an item (url, protocol) a page. */
export function chainSpiderSource(moduleSpecifier: string): string {
  return `import { Request, Spider } from ${JSON.stringify(moduleSpecifier)};

export class Chain extends Spider {
  site = "http://127.0.0.1:1/";
  async *start() {
    for (const url of this.site.split(",")) yield new Request({ url });
  }
  *parse(page) {
    yield { url: page.url, protocol: page.protocol };
    for (const href of page.css("a").attrs("href")) yield page.follow(href);
  }
}
`;
}
