/**
 * Deno's TCP and TLS sockets for the HTTP/1.1 client (src/runtime/h1/client.ts), directly or through a SOCKS proxy
 * (socks.ts). TLS offers only HTTP/1.1 by ALPN, and verifies the server's certificate as Deno's fetch does (the same
 * root store, `--cert` and `DENO_TLS_CA_STORE`).
 */
import type { WireSocket } from "./h1/wire.ts";
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

export async function dialDeno(url: URL): Promise<WireSocket> {
  const { hostname, port, tls } = endpoint(url);
  const conn = tls
    ? await Deno.connectTls({ hostname, port, alpnProtocols: ["http/1.1"] })
    : await Deno.connect({ hostname, port });
  if (!tls) (conn as Deno.TcpConn).setNoDelay(true);
  return wireOf(conn);
}

/** A dial through the SOCKS proxy `proxy`: the handshake on a plain connection to it, then TLS for https. */
export function denoSocksDialer(proxy: URL): (url: URL) => Promise<WireSocket> {
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
      await socksConnect(wireOf(conn), proxy, hostname, port);
      if (!tls) return wireOf(conn);
      return wireOf(await Deno.startTls(conn, { hostname, alpnProtocols: ["http/1.1"] }));
    } catch (error) {
      try {
        conn.close();
      } catch {
        // Closed already.
      }
      throw error;
    }
  };
}
