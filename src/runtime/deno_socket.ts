/**
 * Deno's TCP and TLS sockets for the HTTP/1.1 client (src/runtime/h1/client.ts), directly or through a SOCKS proxy
 * (socks.ts). TLS offers only HTTP/1.1 by ALPN, and verifies the server's certificate as Deno's fetch does (the same
 * root store, `--cert` and `DENO_TLS_CA_STORE`).
 */
import type { WireSocket } from "./h1/wire.ts";
import type { HostResolver } from "./dns/resolver.ts";
import { proxyAddress, socksConnect, unreachableProxy } from "./socks.ts";

/** A URL's host as a socket takes it (an IPv6 literal is bracketed in a URL, not in an address), and its port. */
function endpoint(url: URL): { hostname: string; port: number; tls: boolean } {
  const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const tls = url.protocol === "https:";
  return { hostname, port: Number(url.port || (tls ? 443 : 80)), tls };
}

function wireOf(conn: Deno.Conn): WireSocket {
  let open = true;
  return {
    read: (into) => conn.read(into),
    write: (bytes) => conn.write(bytes),
    close: () => {
      if (!open) return;
      open = false;
      try {
        conn.close();
      } catch {
        // Closed by the other side already.
      }
    },
  };
}

/**
 * Connects to `url`'s host and port, by the address `resolver` gives for its name when there is one (else Deno looks
 * the name up for this connection). TLS goes over that connection with the NAME: it is sent as SNI and the
 * certificate is checked against it, never against the address.
 */
export async function dialDeno(url: URL, resolver?: HostResolver): Promise<WireSocket> {
  const { hostname, port, tls } = endpoint(url);
  if (resolver === undefined) {
    const conn = tls
      ? await Deno.connectTls({ hostname, port, alpnProtocols: ["http/1.1"] })
      : await Deno.connect({ hostname, port });
    if (!tls) (conn as Deno.TcpConn).setNoDelay(true);
    return wireOf(conn);
  }
  const conn = await connectToAny(await resolver.resolve(hostname), port);
  if (!tls) {
    conn.setNoDelay(true);
    return wireOf(conn);
  }
  try {
    return wireOf(await Deno.startTls(conn, { hostname, alpnProtocols: ["http/1.1"] }));
  } catch (error) {
    closeQuietly(conn);
    throw error;
  }
}

/**
 * A connection to the first of `addresses` that takes one, in order: a name with several addresses is reached while
 * one of them is down, as node:net (and so the HTTP/2 path) does. The last failure is the one reported.
 */
async function connectToAny(addresses: string[], port: number): Promise<Deno.TcpConn> {
  for (let index = 0;; index++) {
    try {
      return await Deno.connect({ hostname: addresses[index], port });
    } catch (error) {
      if (index === addresses.length - 1) throw error;
    }
  }
}

/** {@link dialDeno} with `resolver`, as the HTTP/1.1 client's dial. */
export function denoDialer(resolver?: HostResolver): (url: URL) => Promise<WireSocket> {
  return (url) => dialDeno(url, resolver);
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // Closed already.
  }
}

/** A dial through the SOCKS proxy `proxy`: the handshake on a plain connection to it, then TLS for https. */
export function denoSocksDialer(proxy: URL, resolver?: HostResolver): (url: URL) => Promise<WireSocket> {
  return async (url) => {
    const { hostname, port, tls } = endpoint(url);
    let conn: Deno.TcpConn;
    try {
      conn = await Deno.connect(proxyAddress(proxy));
    } catch (error) {
      throw unreachableProxy(proxy, error);
    }
    conn.setNoDelay(true);
    try {
      await socksConnect(wireOf(conn), proxy, hostname, port, resolver);
      if (!tls) return wireOf(conn);
      return wireOf(await Deno.startTls(conn, { hostname, alpnProtocols: ["http/1.1"] }));
    } catch (error) {
      closeQuietly(conn);
      throw error;
    }
  };
}
