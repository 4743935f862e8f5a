/**
 * The client's side of a SOCKS handshake (SOCKS5, RFC 1928, with RFC 1929's user name and password; SOCKS4a), over
 * a connected {@link WireSocket} to the proxy. Once it resolves, the socket carries bytes to and from the target as
 * if connected to it directly, and the HTTP/1.1 client (h1/client.ts) speaks over it, with TLS on top for https.
 * Pure over the socket, so both runtimes' dialers (deno_socket.ts, node_socket.ts) share it.
 *
 * `socks5://` resolves the target's name here and sends the proxy an address, `socks5h://` and `socks4a://` send
 * the name and let the proxy resolve it (curl's and Python requests' meaning of the schemes).
 */
import { lookup } from "node:dns/promises";
import type { WireSocket } from "./h1/wire.ts";
import type { HostResolver } from "./dns/resolver.ts";

/** The URL schemes taken for a SOCKS proxy. */
export const SOCKS_SCHEMES = ["socks5:", "socks5h:", "socks4a:"];

/** Whether a proxy URL names a SOCKS proxy. */
export function isSocksProxy(proxy: string): boolean {
  return /^socks(5h?|4a):\/\//i.test(proxy);
}

/** A failure of the proxy itself, its message naming the proxy without its password. */
export class ProxyError extends Error {
  override name = "ProxyError";
}

/** The proxy URL as shown in messages: its user name kept, its password never. */
export function shownProxy(proxy: URL): string {
  const user = proxy.username ? `${proxy.username}@` : "";
  return `${proxy.protocol}//${user}${proxy.host}`;
}

/** The proxy's host and port, for the dialer to connect to (1080 when the URL gives none). */
export function proxyAddress(proxy: URL): { hostname: string; port: number } {
  const hostname = proxy.hostname.startsWith("[") ? proxy.hostname.slice(1, -1) : proxy.hostname;
  return { hostname, port: Number(proxy.port || 1080) };
}

/** SOCKS5 replies (RFC 1928, 6), in words. */
const SOCKS5_REPLIES: Record<number, string> = {
  1: "general failure",
  2: "connection not allowed by its rules",
  3: "network unreachable",
  4: "host unreachable",
  5: "connection refused by the target",
  6: "TTL expired",
  7: "command not supported",
  8: "address type not supported",
};

/** SOCKS4 replies (90 is granted). */
const SOCKS4_REPLIES: Record<number, string> = {
  91: "request rejected or failed",
  92: "request rejected: the proxy could not reach the client's identd",
  93: "request rejected: the user id was not confirmed by identd",
};

/** Reads exactly `count` bytes (the handshake's replies have known sizes, so nothing past them is read). */
async function readExactly(socket: WireSocket, count: number, shown: string): Promise<Uint8Array> {
  const bytes = new Uint8Array(count);
  let filled = 0;
  while (filled < count) {
    const read = await socket.read(bytes.subarray(filled));
    if (read === null) throw new ProxyError(`SOCKS proxy ${shown} closed the connection during its handshake`);
    filled += read;
  }
  return bytes;
}

async function writeAll(socket: WireSocket, bytes: Uint8Array): Promise<void> {
  for (let written = 0; written < bytes.length;) written += await socket.write(bytes.subarray(written));
}

const encoder = new TextEncoder();

/** A target host as SOCKS5 addresses it: IPv4 (1), a name (3) or IPv6 (4). */
function socks5Address(host: string): Uint8Array {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(host)) return Uint8Array.of(1, ...host.split(".").map(Number));
  if (host.includes(":")) return Uint8Array.of(4, ...ipv6Bytes(host));
  const name = encoder.encode(host);
  if (name.length > 255) throw new ProxyError(`host name ${host} is too long for a SOCKS proxy`);
  return Uint8Array.of(3, name.length, ...name);
}

/** An IPv6 address's 16 bytes (`::` expanded). */
function ipv6Bytes(address: string): number[] {
  const [head, tail] = address.includes("::") ? address.split("::") : [address, undefined];
  const groups = (part: string | undefined) => part ? part.split(":") : [];
  const front = groups(head);
  const back = groups(tail);
  const all = tail === undefined ? front : [...front, ...Array(8 - front.length - back.length).fill("0"), ...back];
  return all.flatMap((group) => {
    const value = parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}

/**
 * Asks the proxy at the other end of `socket` for a connection to `host`:`port`. Rejects with a
 * {@link ProxyError} when the proxy refuses the login or the connection. For `socks5://`, the name is looked up here,
 * by `resolver` (the crawl's DNS cache) when given.
 */
export async function socksConnect(
  socket: WireSocket,
  proxy: URL,
  host: string,
  port: number,
  resolver?: HostResolver,
): Promise<void> {
  const shown = shownProxy(proxy);
  const target = host.startsWith("[") ? host.slice(1, -1) : host;
  const user = decodeURIComponent(proxy.username);
  const password = decodeURIComponent(proxy.password);
  switch (proxy.protocol) {
    case "socks5:":
      return await socks5(socket, shown, await resolve(target, resolver), port, user, password);
    case "socks5h:":
      return await socks5(socket, shown, target, port, user, password);
    case "socks4a:":
      if (password !== "") throw new ProxyError(`SOCKS4a proxy ${shown} takes a user id but no password`);
      return await socks4a(socket, shown, target, port, user);
    default:
      throw new ProxyError(`${proxy.protocol}// is not a SOCKS proxy (socks5, socks5h or socks4a)`);
  }
}

/**
 * The address socks5:// sends for a host name: IPv4 first when the name has both, as a proxy is likelier to reach it
 * (`localhost` is ::1 first on many systems, and a server listening on 127.0.0.1 only is common).
 */
async function resolve(host: string, resolver?: HostResolver): Promise<string> {
  // The crawl's resolver puts IPv4 first itself.
  if (resolver) return (await resolver.resolve(host))[0];
  const addresses = await lookup(host, { all: true });
  return (addresses.find((entry) => entry.family === 4) ?? addresses[0]).address;
}

async function socks5(
  socket: WireSocket,
  shown: string,
  host: string,
  port: number,
  user: string,
  password: string,
): Promise<void> {
  const login = user !== "" || password !== "";
  // Methods offered: 0 (none) always, 2 (user name and password) when the URL carries a login.
  await writeAll(socket, login ? Uint8Array.of(5, 2, 0, 2) : Uint8Array.of(5, 1, 0));
  const [version, method] = await readExactly(socket, 2, shown);
  if (version !== 5) throw new ProxyError(`${shown} did not answer as a SOCKS5 proxy`);
  if (method === 0xff) {
    throw new ProxyError(
      `SOCKS proxy ${shown} accepts none of the offered ways to log in` +
        (login ? "" : " (it wants a login: put user:password@ in the proxy URL)"),
    );
  }
  if (method === 2) {
    if (!login) throw new ProxyError(`SOCKS proxy ${shown} asks for a login, and its URL gives none`);
    const name = encoder.encode(user);
    const secret = encoder.encode(password);
    if (name.length > 255 || secret.length > 255) {
      throw new ProxyError(`the login of SOCKS proxy ${shown} is longer than SOCKS5 allows (255 bytes each)`);
    }
    await writeAll(socket, Uint8Array.of(1, name.length, ...name, secret.length, ...secret));
    const [, status] = await readExactly(socket, 2, shown);
    if (status !== 0) throw new ProxyError(`SOCKS proxy ${shown} refused the login (wrong user name or password)`);
  } else if (method !== 0) {
    throw new ProxyError(`SOCKS proxy ${shown} chose a way to log in Netweir does not speak (${method})`);
  }
  await writeAll(socket, Uint8Array.of(5, 1, 0, ...socks5Address(host), port >> 8, port & 0xff));
  const [replyVersion, reply, , type] = await readExactly(socket, 4, shown);
  if (replyVersion !== 5) throw new ProxyError(`${shown} did not answer as a SOCKS5 proxy`);
  if (reply !== 0) {
    const why = SOCKS5_REPLIES[reply] ?? `reply ${reply}`;
    throw new ProxyError(`SOCKS proxy ${shown} could not connect to ${host}:${port}: ${why}`);
  }
  // The address the proxy bound, which nothing here needs, then its port.
  const length = type === 1 ? 4 : type === 4 ? 16 : (await readExactly(socket, 1, shown))[0];
  await readExactly(socket, length + 2, shown);
}

async function socks4a(socket: WireSocket, shown: string, host: string, port: number, user: string): Promise<void> {
  const ipv4 = /^\d{1,3}(\.\d{1,3}){3}$/.test(host);
  if (host.includes(":")) throw new ProxyError(`SOCKS4a proxy ${shown} cannot reach an IPv6 address (${host})`);
  // SOCKS4a: the address 0.0.0.1 says the host's name follows the user id.
  const address = ipv4 ? host.split(".").map(Number) : [0, 0, 0, 1];
  const name = ipv4 ? [] : [...encoder.encode(host), 0];
  await writeAll(socket, Uint8Array.of(4, 1, port >> 8, port & 0xff, ...address, ...encoder.encode(user), 0, ...name));
  const [, reply] = await readExactly(socket, 8, shown);
  if (reply !== 90) {
    const why = SOCKS4_REPLIES[reply] ?? `reply ${reply}`;
    throw new ProxyError(`SOCKS proxy ${shown} could not connect to ${host}:${port}: ${why}`);
  }
}

/** A failure to reach the proxy at all, said as the proxy's. */
export function unreachableProxy(proxy: URL, error: unknown): ProxyError {
  const reason = error instanceof Error ? error.message : String(error);
  return new ProxyError(`SOCKS proxy ${shownProxy(proxy)} could not be reached: ${reason}`, { cause: error });
}
