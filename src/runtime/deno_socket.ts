/**
 * Deno's TCP and TLS sockets for the HTTP/1.1 client (src/runtime/h1/client.ts). TLS offers only HTTP/1.1 by ALPN,
 * and verifies the server's certificate as Deno's fetch does (the same root store, `--cert` and
 * `DENO_TLS_CA_STORE`).
 */
import type { WireSocket } from "./h1/wire.ts";

export async function dialDeno(url: URL): Promise<WireSocket> {
  // An IPv6 literal is bracketed in a URL, not in an address.
  const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const tls = url.protocol === "https:";
  const port = Number(url.port || (tls ? 443 : 80));
  const conn = tls
    ? await Deno.connectTls({ hostname, port, alpnProtocols: ["http/1.1"] })
    : await Deno.connect({ hostname, port });
  if (!tls) (conn as Deno.TcpConn).setNoDelay(true);
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
