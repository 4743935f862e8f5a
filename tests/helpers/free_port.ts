/** Free TCP ports on 127.0.0.1, for servers that must be told their port up front (redis-server). */
import { createServer } from "node:net";

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
