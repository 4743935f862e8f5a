/**
 * A crawl's host resolver: every connection the crawl opens asks it for the address of the URL's host (the dialers in
 * deno_socket.ts, node_socket.ts and h2/dial.ts), so a name is looked up once per the TTL its DNS records give, not
 * once per connection. Where an answer comes from, in order:
 *
 * 1. an IP literal is its own address, never looked up;
 * 2. the hosts file (hosts_file.ts), as the system's own lookup reads it first; `localhost` and `*.localhost` are
 *    loopback even when it does not list them (RFC 6761);
 * 3. DNS, by node:dns's Resolver (c-ares on Node, Deno's own resolver on Deno: both asynchronous, on no thread of
 *    the crawl's), at the servers the `dns_servers` setting names or else the system's: A records, and AAAA only
 *    when the name has no A record (a server that listens on IPv4 only is the usual case; see docs/design/dns.md).
 *    Its TTL is kept between a floor and a cap;
 * 4. when no servers were named and DNS gave nothing, the system's lookup (getaddrinfo, on libuv's or Deno's thread
 *    pool), which knows what the system knows beyond DNS (mDNS, NSS modules), kept for a fixed time.
 *
 * A failure is kept briefly too (the negative TTL) and reported as a {@link DnsLookupError}. Each crawl makes its own
 * resolver: two crawls in one process share no answer.
 */
import { lookup as systemLookup, Resolver } from "node:dns/promises";
import { isIP } from "node:net";
import { type Answer, AnswerCache } from "./answer_cache.ts";
import { HOSTS_TTL, HostsFile } from "./hosts_file.ts";

/** How a resolver works; the crawl's settings (dns_*, src/settings/table.ts) give each, with their defaults. */
export interface HostResolverOptions {
  /** DNS servers to ask, as `ip` or `ip:port` (`[ipv6]:port`); the system's when empty. */
  servers: string[];
  /** Keep answers for their TTL (true), or ask again for every connection (false). */
  cache: boolean;
  /** Seconds to wait for DNS before the lookup fails. */
  timeout: number;
  /** Seconds an answer is kept at least, whatever its records say. */
  minTtl: number;
  /** Seconds an answer is kept at most. */
  maxTtl: number;
  /** Seconds a failed lookup is kept before the name is asked again. */
  negativeTtl: number;
  /** Names kept at most; the least recently used go first. */
  size: number;
  /** The hosts file to read (the system's by default). */
  hostsFile?: HostsFile;
  /** Milliseconds, for the cache's expiry (performance.now by default). */
  now?: () => number;
}

/** A name no address was found for. `code` is what Node's own lookups say: ENOTFOUND for none, EAI_AGAIN for none yet. */
export class DnsLookupError extends Error {
  override name = "DnsLookupError";
  readonly code: "ENOTFOUND" | "EAI_AGAIN";
  readonly host: string;
  /** Why, in a few words: "no such name", "no answer within 5 s from 127.0.0.1:5353". */
  readonly reason: string;
  constructor(host: string, code: "ENOTFOUND" | "EAI_AGAIN", reason: string, options?: ErrorOptions) {
    super(`DNS lookup of ${host} failed: ${reason}`, options);
    this.host = host;
    this.code = code;
    this.reason = reason;
  }
}

export interface HostResolver {
  /** The addresses to connect to for `host`, best first (never empty); rejects with a {@link DnsLookupError}. */
  resolve(host: string): Promise<string[]>;
  /** DNS queries sent so far (A and AAAA each count). */
  readonly queries: number;
}

/** A DNS record list with TTLs, as node:dns's resolve4/resolve6 give it with `{ ttl: true }`. */
type Records = Array<{ address: string; ttl: number }>;

export function createHostResolver(options: HostResolverOptions): HostResolver {
  const { servers, timeout, minTtl, negativeTtl } = options;
  const maxTtl = Math.max(minTtl, options.maxTtl);
  const cacheOn = options.cache;
  const cache = new AnswerCache({ size: options.size, now: options.now });
  const hosts = options.hostsFile ?? new HostsFile(undefined, options.now);
  // Two tries, each half the time: one lost UDP datagram does not fail the lookup, and the whole stays within it.
  const dns = new Resolver({ timeout: Math.max(1, Math.round(timeout * 500)), tries: 2 });
  if (servers.length > 0) dns.setServers(servers);
  const shownServers = servers.length > 0 ? servers.join(", ") : "the system's DNS servers";
  let queries = 0;

  const kept = (ttl: number) => cacheOn ? ttl : 0;
  const clamp = (ttl: number) => kept(Math.min(maxTtl, Math.max(minTtl, ttl)));

  /** One query, its failure's code kept; `undefined` for a name without records of that type. */
  const query = async (name: string, type: 4 | 6): Promise<Records | undefined> => {
    queries++;
    try {
      const records: Records = type === 4
        ? await dns.resolve4(name, { ttl: true })
        : await dns.resolve6(name, { ttl: true });
      return records.length > 0 ? records : undefined;
    } catch (error) {
      // Node tells a name without such records (ENODATA) from no name (ENOTFOUND); Deno says ENOTFOUND for both.
      const code = (error as { code?: string }).code;
      if (code === "ENODATA" || code === "ENOTFOUND") return undefined;
      throw error;
    }
  };

  /** The name's A records, else its AAAA records; a DnsLookupError when it has neither or DNS failed. */
  const askDns = async (name: string): Promise<Answer> => {
    const late = () => new DnsLookupError(name, "EAI_AGAIN", `no answer within ${timeout} s from ${shownServers}`);
    try {
      const records = await within((async () => await query(name, 4) ?? await query(name, 6))(), timeout, late);
      if (records === undefined) throw new DnsLookupError(name, "ENOTFOUND", "no such name");
      return { addresses: records.map((record) => record.address), ttl: clamp(Math.min(...records.map((r) => r.ttl))) };
    } catch (error) {
      if (error instanceof DnsLookupError) throw error;
      throw new DnsLookupError(name, "EAI_AGAIN", dnsFailure(error, shownServers), { cause: error });
    }
  };

  /** The system's addresses for `name`, IPv4 first; none when it has none or takes longer than the timeout. */
  const askSystem = async (name: string): Promise<string[]> => {
    const found = await within(systemLookup(name, { all: true }), timeout, () => new Error("late")).catch(() => []);
    return found.sort((a, b) => a.family - b.family).map((entry) => entry.address);
  };

  const lookup = async (name: string): Promise<Answer> => {
    const listed = await hosts.addresses(name);
    if (listed !== undefined) return { addresses: listed, ttl: kept(HOSTS_TTL) };
    if (name === "localhost" || name.endsWith(".localhost")) {
      return { addresses: ["127.0.0.1", "::1"], ttl: kept(HOSTS_TTL) };
    }
    try {
      return await askDns(name);
    } catch (error) {
      const failure = error as DnsLookupError;
      // Servers the user named are the whole truth; the system's would be asked behind their back.
      const addresses = servers.length === 0 ? await askSystem(name) : [];
      if (addresses.length > 0) return { addresses, ttl: kept(HOSTS_TTL) };
      return { error: failure, ttl: kept(negativeTtl) };
    }
  };

  return {
    async resolve(host) {
      const name = host.startsWith("[") ? host.slice(1, -1) : host;
      if (isIP(name) !== 0) return [name];
      const key = name.toLowerCase().replace(/\.$/, "");
      const answer = cacheOn ? await cache.get(key, () => lookup(key)) : await lookup(key);
      if ("error" in answer) throw answer.error;
      return answer.addresses;
    },
    get queries() {
      return queries;
    },
  };
}

/**
 * `work`'s outcome, or a rejection with `late()` once `seconds` have passed: a lookup that hangs (a DNS server that
 * never answers, a getaddrinfo stuck in its own retries) fails the requests waiting for it instead of holding them.
 */
async function within<T>(work: Promise<T>, seconds: number, late: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => timer = setTimeout(() => reject(late()), seconds * 1000));
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** A DNS failure other than "no such name", in words. */
function dnsFailure(error: unknown, shownServers: string): string {
  const code = (error as { code?: string }).code;
  switch (code) {
    case "ETIMEOUT":
      return `no answer from ${shownServers}`;
    case "ECONNREFUSED":
      return `${shownServers} could not be reached`;
    case "EREFUSED":
      return `${shownServers} refused to answer`;
    case "ESERVFAIL":
      return `${shownServers} answered with a server failure`;
    default:
      return `${code ?? "error"} from ${shownServers}`;
  }
}
