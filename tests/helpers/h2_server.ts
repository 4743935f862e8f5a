/**
 * Node's own HTTP/2 server (node:http2, run by Node 22 in a process of its own: h2_site.mjs) serving a small shop on
 * 127.0.0.1, with TLS from a test CA (certificates.ts) or as plain h2c, and the faults the HTTP/2 tests cause: a
 * stream cap, a GOAWAY after some requests, a delay per answer. `seen()` asks its control port what it saw.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { NODE22 } from "./node_package.ts";
import type { Certificates } from "./certificates.ts";

const SITE = new URL("./h2_site.mjs", import.meta.url).pathname;

export interface H2SiteOptions {
  /** TLS with the test CA's server certificate; without it, plain h2c. */
  certs?: Certificates;
  allowHttp1?: boolean;
  /** An HTTPS server speaking only HTTP/1.1 (its ALPN offers no h2). */
  http1Only?: boolean;
  maxStreams?: number;
  goawayAfter?: number;
  items?: number;
  delayMs?: number;
  /** Listen on 0.0.0.0 and answer every address of 127.0.0.0/8 (each a distinct origin); `url` stays 127.0.0.1's. */
  anyLoopback?: boolean;
}

export interface SeenRequest {
  path: string;
  /** "2.0", "1.1". */
  version: string;
  /** The HTTP/2 connection it came on (1, 2, ...), 0 for HTTP/1.1. */
  connection: number;
  cookie: string | null;
}

export interface H2Site {
  /** The shop's root, with a trailing slash. */
  url: string;
  port: number;
  seen(): Promise<{ log: SeenRequest[]; maxOpen: number; connections: number }>;
  close(): Promise<void>;
}

export async function startH2Site(options: H2SiteOptions): Promise<H2Site> {
  const { certs, ...rest } = options;
  const args = JSON.stringify({ ...rest, cert: certs?.serverCert, key: certs?.serverKey });
  const child = spawn(NODE22, [SITE, args], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`the HTTP/2 site exited (${code}) before listening`)));
  });
  const [port, control] = line.trim().split(" ").map(Number);
  return {
    url: `${certs ? "https" : "http"}://127.0.0.1:${port}/`,
    port,
    seen: async () => await (await fetch(`http://127.0.0.1:${control}/log`)).json(),
    close: async () => {
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/**
 * A spider of the site startH2Site serves, importing Netweir from `netweir` (a path, or "netweir" in a package): the
 * shop page and each item, each item saying which protocol carried it.
 */
export function h2ShopSpider(netweir: string): string {
  return `
import { Request, Spider } from ${JSON.stringify(netweir)};
export class H2Shop extends Spider {
  site = "https://127.0.0.1:1/";
  async *start() {
    yield new Request({ url: this.site });
  }
  *parse(page) {
    yield { kind: "shop", protocol: page.protocol };
    for (const href of page.css("a").attrs("href")) yield page.follow(href, { callback: this.parseItem });
  }
  parseItem(page) {
    return { kind: "item", title: page.css("h1").text(), protocol: page.protocol };
  }
}
`;
}
