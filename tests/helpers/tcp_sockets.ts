/** Counting TCP connections the kernel's way, for tests that bound how many a client keeps open. */
import { readFile } from "node:fs/promises";

/**
 * Established TCP sockets, IPv4 and IPv6, whose remote port is `port`: the connections clients on this machine have
 * open to a server on that port (the server's own sockets have it as their local port, so they are not counted).
 */
export async function establishedTo(port: number): Promise<number> {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  let count = 0;
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const text = await readFile(table, "utf8").catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      // sl, local address, remote address, state (01 is ESTABLISHED), ...
      const fields = line.trim().split(/\s+/);
      if (fields.length > 3 && fields[2].endsWith(`:${hex}`) && fields[3] === "01") count++;
    }
  }
  return count;
}
