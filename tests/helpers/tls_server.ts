/** An HTTPS server on 127.0.0.1 with a test CA's server certificate (certificates.ts), counting its connections. */
import type { Certificates } from "./certificates.ts";

/** Deno.serve's options for HTTPS on a free port of 127.0.0.1 with the test CA's server certificate. */
export function tlsServeOptions(certs: Certificates): Deno.ServeTcpOptions & Deno.TlsCertifiedKeyPem {
  return {
    hostname: "127.0.0.1",
    port: 0,
    cert: Deno.readTextFileSync(certs.serverCert),
    key: Deno.readTextFileSync(certs.serverKey),
    onListen() {},
  };
}

/** Serves `body` at every path; `connections` counts the TLS connections it accepted. */
export function serveTls(certs: Certificates, body: string) {
  // A connection is told by the client's address and port: a kept one comes back from the same port.
  const seen = new Set<string>();
  const server = Deno.serve(tlsServeOptions(certs), (_request, info) => {
    seen.add(`${info.remoteAddr.hostname}:${info.remoteAddr.port}`);
    return new Response(body);
  });
  return {
    url: `https://127.0.0.1:${server.addr.port}/page`,
    get connections() {
      return seen.size;
    },
    close: () => server.shutdown(),
  };
}
