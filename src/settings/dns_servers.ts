/**
 * The `dns_servers` setting's check. node:dns takes a server only as an address, with an optional port: `127.0.0.1`,
 * `127.0.0.1:5353`, `::1`, `[::1]:5353`. A name would need a DNS server to find it, so one is refused here, at start,
 * in one line, rather than by node:dns when the crawl makes its first connection.
 */
import { isIP } from "node:net";

function isServer(entry: string): boolean {
  if (isIP(entry) !== 0) return true;
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry);
  const withPort = bracketed ?? /^([\d.]+):(\d{1,5})$/.exec(entry);
  if (withPort === null) return false;
  const [, address, port] = withPort;
  const family = isIP(address);
  if (bracketed ? family !== 6 : family !== 4) return false;
  return port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
}

/** A problem with a `dns_servers` list, in words, or undefined. */
export function dnsServersProblem(list: string[]): string | undefined {
  return list.every(isServer)
    ? undefined
    : "must be DNS server addresses with an optional port (127.0.0.1:5353, [::1]:53)";
}
