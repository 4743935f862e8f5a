/**
 * A real HTTP forward proxy on 127.0.0.1 for tests of proxy settings: requests in absolute form
 * (`GET http://host/path`) are forwarded, CONNECT is tunnelled, and every target it relays is logged. With a user
 * and password it answers 407 to any request without the matching Proxy-Authorization.
 */
import { Buffer } from "node:buffer";
import { createServer, type IncomingMessage, request as forward } from "node:http";
import { connect, type Socket } from "node:net";

export interface ProxyOptions {
  /** Require this login (Proxy-Authorization: Basic). */
  user?: string;
  password?: string;
}

/** A running proxy started by {@link startProxy}. */
export interface TestProxy {
  /** `http://127.0.0.1:PORT` (without the login; add it to the URL to authenticate). */
  url: string;
  port: number;
  /** What it relayed, in order: absolute URLs for forwarded requests, `host:port` for CONNECT tunnels. */
  requests: string[];
  /** Requests it refused with 407, in the same form. */
  refused: string[];
  close(): Promise<void>;
}

/** Headers a proxy must not pass on (RFC 9110, 7.6.1). */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authorization",
  "proxy-authenticate",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

function passOn(headers: IncomingMessage["headers"]): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) kept[name] = value;
  }
  return kept;
}

/** Starts a forward proxy on a free port of 127.0.0.1. */
export function startProxy(options: ProxyOptions = {}): Promise<TestProxy> {
  const requests: string[] = [];
  const refused: string[] = [];
  const sockets = new Set<Socket>();
  const expected = options.user !== undefined || options.password !== undefined
    ? `Basic ${Buffer.from(`${options.user ?? ""}:${options.password ?? ""}`).toString("base64")}`
    : undefined;
  const allowed = (message: IncomingMessage) =>
    expected === undefined || message.headers["proxy-authorization"] === expected;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  };

  const server = createServer((incoming, outgoing) => {
    const target = incoming.url ?? "";
    if (!allowed(incoming)) {
      refused.push(target);
      outgoing.writeHead(407, { "proxy-authenticate": 'Basic realm="test proxy"', "content-type": "text/plain" });
      outgoing.end("proxy authentication required\n");
      return;
    }
    let url: URL;
    try {
      url = new URL(target);
      if (url.protocol !== "http:") throw new TypeError("only http:// is forwarded; https goes through CONNECT");
    } catch (error) {
      outgoing.writeHead(400, { "content-type": "text/plain" });
      outgoing.end(`not a forward-proxy request: ${target} (${(error as Error).message})\n`);
      return;
    }
    requests.push(url.href);
    const upstream = forward({
      host: url.hostname,
      port: url.port || 80,
      method: incoming.method,
      path: url.pathname + url.search,
      headers: passOn(incoming.headers),
    }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, passOn(answer.headers));
      answer.pipe(outgoing);
    });
    upstream.on("error", (error) => {
      if (!outgoing.headersSent) outgoing.writeHead(502, { "content-type": "text/plain" });
      outgoing.end(`upstream failed: ${error.message}\n`);
    });
    incoming.pipe(upstream);
  });

  server.on("connection", track);
  server.on("connect", (incoming: IncomingMessage, client: Socket, head: Buffer) => {
    const target = incoming.url ?? "";
    if (!allowed(incoming)) {
      refused.push(target);
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test proxy"\r\n' +
          "Content-Length: 0\r\nConnection: close\r\n\r\n",
      );
      return;
    }
    const at = target.lastIndexOf(":");
    const host = target.slice(0, at).replace(/^\[|\]$/g, "");
    const port = Number(target.slice(at + 1));
    if (at < 0 || !Number.isInteger(port) || port <= 0) {
      client.end("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      return;
    }
    requests.push(target);
    const upstream = connect(port, host);
    track(upstream);
    upstream.once("connect", () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });

  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      let closed: Promise<void> | undefined;
      resolve({
        url: `http://127.0.0.1:${port}`,
        port,
        requests,
        refused,
        close() {
          closed ??= new Promise<void>((done) => {
            server.close(() => done());
            // Tunnels and kept-alive connections would hold close() open for ever.
            for (const socket of sockets) socket.destroy();
            server.closeAllConnections();
          });
          return closed;
        },
      });
    });
  });
}
