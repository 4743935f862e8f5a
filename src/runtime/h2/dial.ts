/**
 * Connections whose protocol the server picks: TLS offering `h2` and `http/1.1` by ALPN, directly or through a
 * proxy's tunnel (SOCKS, or an HTTP proxy's CONNECT). They are node:net and node:tls sockets on both runtimes, since
 * node:http2 (Deno's and Node's) takes a Node socket to speak over, and a connection on which the server chose
 * http/1.1 goes on to the HTTP/1.1 client as it is (node_socket.ts's connectedWire), so no handshake is wasted.
 */
import { connect, type LookupFunction, type Socket } from "node:net";
import { connect as connectTls } from "node:tls";
import { Buffer } from "node:buffer";
import { pullByEvents } from "../node_socket.ts";
import { proxyAddress, ProxyError, shownProxy, socksConnect, unreachableProxy } from "../socks.ts";
import { Wire } from "../h1/wire.ts";
import type { HostResolver } from "../dns/resolver.ts";

/** Opens a plain connection to host and port: directly, or through a proxy that carries the bytes on. */
export type Tunnel = (host: string, port: number) => Promise<Socket>;

/** A connection and the protocol agreed on it: an ALPN name, or undefined for plain TCP or a server without ALPN. */
export interface Dialed {
  socket: Socket;
  protocol: string | undefined;
}

/** A URL's host as a socket takes it (without an IPv6 literal's brackets) and its port. */
export function endpointOf(url: URL): { host: string; port: number } {
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  return { host, port: Number(url.port || (url.protocol === "https:" ? 443 : 80)) };
}

/** SNI takes a name, never an address. */
function serverName(host: string): string | undefined {
  return /^[\d.]+$|:/.test(host) ? undefined : host;
}

/**
 * Resolves once `socket` has emitted `event`, or rejects with its error, or with the signal's reason once it aborts
 * (the socket destroyed either way: a handshake the server never finishes must not hang on).
 */
function once(socket: Socket, event: "connect" | "secureConnect", signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: unknown) => {
      signal?.removeEventListener("abort", onAbort);
      socket.destroy();
      reject(error);
    };
    const onAbort = () => onError(signal!.reason);
    socket.once(event, () => {
      socket.off("error", onError);
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    socket.once("error", onError);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** A direct TCP connection, to the address `lookup` gives for the host when given (else the system's lookup). */
export function directTunnelWith(lookup?: LookupFunction): Tunnel {
  return async (host, port) => {
    const socket = connect({ host, port, lookup });
    socket.setNoDelay(true);
    await once(socket, "connect");
    return socket;
  };
}

/** A direct TCP connection, its host looked up by the system. */
export const directTunnel: Tunnel = directTunnelWith();

/**
 * Connects to `url`'s origin offering `protocols` by ALPN (https), or plainly (http), through `tunnel` when given;
 * `signal` gives up the TLS handshake. A direct connection goes to the address `lookup` (the crawl's DNS cache) gives,
 * with the URL's name still sent as SNI and checked in the certificate. The socket has no listeners left: the
 * caller's protocol takes it over.
 */
export async function dialAlpn(
  url: URL,
  protocols: string[],
  tunnel?: Tunnel,
  signal?: AbortSignal,
  lookup?: LookupFunction,
): Promise<Dialed> {
  const { host, port } = endpointOf(url);
  if (url.protocol !== "https:") {
    return { socket: await (tunnel ?? directTunnelWith(lookup))(host, port), protocol: undefined };
  }
  const raw = tunnel ? await tunnel(host, port) : undefined;
  // `host` too when over a tunnel: the certificate is checked against it (Node takes "localhost" otherwise).
  const secure = connectTls({
    ...(raw ? { socket: raw } : { port, lookup }),
    host,
    servername: serverName(host),
    ALPNProtocols: protocols,
  });
  secure.setNoDelay?.(true);
  try {
    await once(secure, "secureConnect", signal);
  } catch (error) {
    raw?.destroy();
    throw error;
  }
  return { socket: secure, protocol: secure.alpnProtocol || undefined };
}

/** A plain connection to the proxy, its failure named as the proxy's. */
async function toProxy(proxy: URL, defaultPort: number): Promise<Socket> {
  const address = proxyAddress(proxy);
  try {
    return await directTunnel(address.hostname, proxy.port ? address.port : defaultPort);
  } catch (error) {
    throw unreachableProxy(proxy, error);
  }
}

/**
 * A tunnel through the SOCKS proxy `proxy` (socks.ts does the handshake); `resolver` looks up the names a `socks5://`
 * proxy is given as addresses (a `socks5h://` one is sent the name).
 */
export function socksTunnel(proxy: URL, resolver?: HostResolver): Tunnel {
  return async (host, port) => {
    const raw = await toProxy(proxy, 1080);
    const plain = pullByEvents(raw);
    try {
      await socksConnect(plain.wire, proxy, host, port, resolver);
    } catch (error) {
      raw.destroy();
      throw error;
    }
    // The handshake's replies were read to their last byte, so nothing of the target's is left in `plain`.
    plain.detach();
    return raw;
  };
}

/**
 * A tunnel through the HTTP proxy `proxy` by CONNECT (RFC 9110, 9.3.6), with its user name and password as Basic
 * Proxy-Authorization. The bytes after the proxy's 2xx belong to the target, so the reply is read to its head's end
 * and no further: the client speaks first on a new connection (the TLS hello, or HTTP/2's preface), so nothing of the
 * target's can have arrived with it.
 */
export function connectTunnel(proxy: URL): Tunnel {
  const authorization = proxy.username
    ? "proxy-authorization: Basic " +
      Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString("base64") +
      "\r\n"
    : "";
  return async (host, port) => {
    const raw = await toProxy(proxy, 80);
    const authority = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
    const plain = pullByEvents(raw);
    const wire = new Wire(plain.wire);
    try {
      await wire.writeAll(
        new TextEncoder().encode(`CONNECT ${authority} HTTP/1.1\r\nhost: ${authority}\r\n${authorization}\r\n`),
      );
      const head = await wire.readHead();
      if (head.status < 200 || head.status > 299) {
        throw new ProxyError(
          `HTTP proxy ${shownProxy(proxy)} refused to connect to ${authority}: status ${head.status}`,
        );
      }
      if (wire.buffered > 0) throw new ProxyError(`HTTP proxy ${shownProxy(proxy)} sent bytes after its CONNECT reply`);
    } catch (error) {
      raw.destroy();
      if (error instanceof ProxyError) throw error;
      throw new ProxyError(
        `HTTP proxy ${shownProxy(proxy)} failed to open a tunnel to ${authority}: ${String(error)}`,
        {
          cause: error,
        },
      );
    }
    plain.detach();
    return raw;
  };
}
