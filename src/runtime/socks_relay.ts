/**
 * A SOCKS5 relay on 127.0.0.1 without a login, in front of a SOCKS proxy with one: Chromium cannot log in to a SOCKS
 * proxy (it never asks, and DevTools' auth challenge is for HTTP proxies only), so a rendered page through such a
 * proxy is sent to this relay, which logs in for it. Each connection Chromium opens gets the greeting and CONNECT of
 * SOCKS5 answered here, a connection of its own through the real proxy (socks.ts, with the login), and then the bytes
 * of both relayed as they are (TLS stays end to end). Only this machine can reach it; it lives as long as the
 * browser's context for that proxy. node:net serves it on both runtimes.
 */
import { type AddressInfo, connect, createServer, type Socket } from "node:net";
import { pullByEvents } from "./node_socket.ts";
import { proxyAddress, socksConnect, unreachableProxy } from "./socks.ts";

/** A running relay: `url` is what Chromium is given. */
export interface SocksRelay {
  url: string;
  close(): Promise<void>;
}

/** Reads a SOCKS5 CONNECT from `client`: the greeting (answered: no login), then the request's host and port. */
function readConnect(client: Socket): Promise<{ host: string; port: number }> {
  return new Promise((resolve, reject) => {
    let bytes = new Uint8Array();
    let greeted = false;
    const onData = (chunk: Uint8Array) => {
      bytes = Uint8Array.of(...bytes, ...chunk);
      if (!greeted) {
        if (bytes.length < 2 || bytes.length < 2 + bytes[1]) return;
        if (bytes[0] !== 5) return fail("not SOCKS5");
        client.write(Uint8Array.of(5, 0));
        bytes = bytes.subarray(2 + bytes[1]);
        greeted = true;
      }
      if (bytes.length < 5) return;
      const type = bytes[3];
      const length = type === 1 ? 4 : type === 4 ? 16 : type === 3 ? 1 + bytes[4] : -1;
      if (bytes[1] !== 1 || length < 0) return fail("not a CONNECT");
      if (bytes.length < 4 + length + 2) return;
      const address = bytes.subarray(4, 4 + length);
      const host = type === 1
        ? [...address].join(".")
        : type === 3
        ? new TextDecoder().decode(address.subarray(1))
        : Array.from({ length: 8 }, (_, i) => ((address[2 * i] << 8) | address[2 * i + 1]).toString(16)).join(":");
      client.off("data", onData);
      resolve({ host, port: (bytes[4 + length] << 8) | bytes[5 + length] });
    };
    const fail = (why: string) => {
      client.off("data", onData);
      reject(new Error(why));
    };
    client.on("data", onData);
    client.once("error", reject);
  });
}

/** Starts a relay to the SOCKS proxy `proxy` (with its login) on a free port of 127.0.0.1. */
export async function startSocksRelay(proxy: URL): Promise<SocksRelay> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  const server = createServer(async (client) => {
    track(client);
    try {
      const { host, port } = await readConnect(client);
      const address = proxyAddress(proxy);
      const upstream = connect({ host: address.hostname, port: address.port });
      track(upstream);
      const pulled = pullByEvents(upstream);
      const wire = await pulled.ready("connect").catch((error) => {
        throw unreachableProxy(proxy, error);
      });
      await socksConnect(wire, proxy, host, port);
      pulled.detach();
      // Answered as connected; the bound address, which Chromium does not use, as 0.0.0.0:0.
      client.write(Uint8Array.of(5, 0, 0, 1, 0, 0, 0, 0, 0, 0));
      client.pipe(upstream).pipe(client);
    } catch {
      // General failure: Chromium reports the page's request as failed, as it would the proxy's own refusal.
      if (!client.destroyed) client.end(Uint8Array.of(5, 1, 0, 1, 0, 0, 0, 0, 0, 0));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `socks5://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
