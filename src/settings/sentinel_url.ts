/**
 * The Sentinel form of a queue URL: `redis+sentinel://[[user]:password@]host:port[,host:port...]/service[/db]`,
 * with an optional `sentinel_password` parameter. The hosts are Sentinels (port 26379 when left out), `service` is
 * the master's name in their configuration (`sentinel monitor NAME ...`), the password is the Redis servers' and
 * `sentinel_password` the Sentinels' own (`requirepass` in sentinel.conf), when they have one. The connection asks
 * the Sentinels where the master is, and asks again after a failover.
 */

/** Where the Sentinels of a queue's Redis are, and which master of theirs the queue uses. */
export interface SentinelTarget {
  /** The Sentinels, in the order the URL lists them; any one that answers is enough. */
  hosts: Array<{ host: string; port: number }>;
  /** The master's name, as the Sentinels know it. */
  service: string;
  /** The Sentinels' own password, when they ask for one. */
  password?: string;
}

/** What the Sentinel form needs from the plain URL parser (kept there, where the other forms use them too). */
export interface UrlParts {
  refuse(url: string, why: string): never;
  parseDb(url: string, text: string | null): number;
  decodePart(url: string, text: string, what: string): string;
}

/** The parts of a Sentinel URL: the Sentinels, the service, the database and the servers' login. */
export interface ParsedSentinelUrl {
  sentinel: SentinelTarget;
  db: number;
  username?: string;
  password?: string;
}

const DEFAULT_SENTINEL_PORT = 26379;

/** Parses a `redis+sentinel://` URL; anything wrong is refused through `parts.refuse` (a TypeError). */
export function parseSentinelUrl(url: string, parts: UrlParts): ParsedSentinelUrl {
  const rest = url.slice("redis+sentinel://".length);
  // The host list (commas) is not something URL parses; the login before it and the path after it are, so the list
  // is cut out and URL reads the rest. A password holding / ? # or @ is %-escaped, as in every queue URL.
  const slash = rest.search(/[/?#]/);
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  const at = authority.lastIndexOf("@");
  const hostList = authority.slice(at + 1);
  let parsed: URL;
  try {
    parsed = new URL(`redis://${authority.slice(0, at + 1)}sentinel${slash < 0 ? "" : rest.slice(slash)}`);
  } catch {
    return parts.refuse(url, "not a URL; expected redis+sentinel://host:port[,host:port...]/service/db");
  }
  const hosts = hostList.split(",").map((entry) => parseHost(url, entry, parts));
  const [service, db, ...more] = parsed.pathname.replace(/^\//, "").split("/");
  if (!service) parts.refuse(url, "no service; expected redis+sentinel://host:port[,host:port...]/service/db");
  if (more.length > 0) parts.refuse(url, "too many parts in the path; expected /service/db");
  const sentinelPassword = parsed.searchParams.get("sentinel_password");
  for (const name of parsed.searchParams.keys()) {
    if (name !== "sentinel_password") parts.refuse(url, `unknown parameter ${JSON.stringify(name)}`);
  }
  if (sentinelPassword === "") parts.refuse(url, "sentinel_password is empty");
  return {
    sentinel: {
      hosts,
      service: parts.decodePart(url, service, "service"),
      ...(sentinelPassword !== null ? { password: sentinelPassword } : {}),
    },
    db: parts.parseDb(url, db ?? null),
    username: parsed.username ? parts.decodePart(url, parsed.username, "user name") : undefined,
    password: parsed.password ? parts.decodePart(url, parsed.password, "password") : undefined,
  };
}

/** One `host:port` (or `[v6]:port`, or a bare host) of the Sentinel list. */
function parseHost(url: string, entry: string, parts: UrlParts): { host: string; port: number } {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(entry);
  if (!match) {
    return parts.refuse(
      url,
      entry === ""
        ? "an empty Sentinel in the host list; expected host:port[,host:port...]"
        : `Sentinel ${JSON.stringify(entry)} is not host:port`,
    );
  }
  const port = match[2] === undefined ? DEFAULT_SENTINEL_PORT : Number(match[2]);
  if (port < 1 || port > 65535) parts.refuse(url, `Sentinel ${JSON.stringify(entry)} has no valid port`);
  return { host: match[1].replace(/^\[(.*)\]$/, "$1"), port };
}
