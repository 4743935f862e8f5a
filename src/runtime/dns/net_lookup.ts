/**
 * A {@link HostResolver} as the `lookup` option of node:net's and node:tls's connect (on Node, and Deno's node:net,
 * which takes it too): the socket connects to the address it gives, while TLS still sends the URL's name as SNI and
 * checks the certificate against it. Node asks with `all: true` when it may try several addresses (its
 * autoSelectFamily, Happy Eyeballs), and is then given them all.
 */
import type { LookupFunction } from "node:net";
import { isIP } from "node:net";
import type { HostResolver } from "./resolver.ts";

export function netLookup(resolver: HostResolver): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    resolver.resolve(hostname).then(
      (addresses) => {
        const entries = addresses.map((address) => ({ address, family: isIP(address) }));
        if (options.all) callback(null, entries);
        else callback(null, entries[0].address, entries[0].family);
      },
      (error) => callback(error),
    );
  }) as unknown as LookupFunction;
}
