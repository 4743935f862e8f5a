/** Free TCP ports on 127.0.0.1, for servers that must be told their port up front (redis-server). */
import { connect, createServer } from "node:net";

/**
 * A port on 127.0.0.1 that was free a moment ago: the system picks one, and the listener is closed again.
 * Another process could take it before the caller does, so callers that can should retry on "address in use".
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => port ? resolve(port) : reject(new Error("no port was given")));
    });
  });
}

/** Where the system takes the ports it picks by itself (Linux's default ip_local_port_range starts at 32768). */
const SYSTEM_PICKS_FROM = 32768;
const FIXED_FROM = 20000;

/** Whether a listener can be opened on `port` of 127.0.0.1 right now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * A free port below the range the system picks from, for a server that must come back on the same port after it
 * was stopped (a Redis a test restarts). While it is down, a port from freePort's range can be taken by anything:
 * the source port of any outgoing connection, another test's listener on port 0. One below that range is taken only
 * by someone who asks for that number.
 */
export async function freeFixedPort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = FIXED_FROM + Math.floor(Math.random() * (SYSTEM_PICKS_FROM - FIXED_FROM));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${FIXED_FROM} and ${SYSTEM_PICKS_FROM}`);
}

/** Whether something accepts connections on `port` of 127.0.0.1 now (a server started by a test is up). */
export function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
