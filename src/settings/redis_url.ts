/**
 * Queue URLs: `redis://[:password@]host:port/db`, `rediss://` for the same over TLS (with `ca`, `cert` and `key`
 * parameters naming PEM files for a private CA or a client certificate), `redis+unix:///path?db=N&pass=...`, and
 * `redis+sentinel://host:port[,host:port...]/service/db` (sentinel_url.ts).
 * Anything else is refused with a message saying why (a TypeError: a bad value, exit status 2), and passwords never
 * appear in one. It sits with the settings, below the queue, because both use it: the settings check a `queue` URL
 * at the start of a crawl, and the queue connects to it.
 */
import { maskUrl } from "../log.ts";
import { parseSentinelUrl, type SentinelTarget } from "./sentinel_url.ts";

export type { SentinelTarget } from "./sentinel_url.ts";

/** Where a Redis server is and how to log in. */
export interface RedisTarget {
  host?: string;
  port?: number;
  /** Unix socket path, for redis+unix:// URLs. */
  path?: string;
  db: number;
  username?: string;
  password?: string;
  /** For rediss:// URLs: TLS, the server's certificate checked (hostname included) against these CAs or the system's. */
  tls?: TlsFiles;
  /** For redis+sentinel:// URLs: the Sentinels that say where the master is (host and port are then unset). */
  sentinel?: SentinelTarget;
}

/** PEM files for a TLS connection, as a rediss:// URL's parameters name them. */
export interface TlsFiles {
  /** CA certificates to trust instead of the system's (a private CA). */
  ca?: string;
  /** A client certificate, with its key, for a server that asks for one (`tls-auth-clients yes`). */
  cert?: string;
  key?: string;
}

/**
 * A queue URL with its password hidden, whether or not it parses: a password may hold characters (`/`, `?`, `#`,
 * a space, a bad %-escape) that make the URL fail to parse, which is exactly when it is quoted in an error. Everything
 * between `://` and the last `@` is the login there, and a `pass=` or `password=` parameter is hidden too.
 */
export function maskQueueUrl(url: string): string {
  if (URL.parse(url) !== null) return maskUrl(url);
  return url
    .replace(/^([a-z][a-z0-9+.-]*:\/\/)(.*)@/is, (_, scheme: string, login: string) => {
      const colon = login.indexOf(":");
      return `${scheme}${colon < 0 ? "***" : `${login.slice(0, colon)}:***`}@`;
    })
    .replace(/([?&](?:sentinel_)?(?:pass|password)=)[^&#]*/gi, "$1***");
}

function refuse(url: string, why: string): never {
  throw new TypeError(`queue URL ${maskQueueUrl(url)}: ${why}`);
}

/** A URL's %-escaped part decoded, or a refusal naming which part is not (never quoting it: it may be a password). */
function decodePart(url: string, text: string, what: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return refuse(url, `the ${what} has a % that is not followed by two hex digits (write % as %25)`);
  }
}

/** The largest database number Redis can have (its `databases` setting is an int). */
const MAX_DB = 2 ** 31 - 1;

function parseDb(url: string, text: string | null): number {
  if (text === null || text === "") return 0;
  if (!/^\d+$/.test(text)) refuse(url, `the database must be a number, not ${JSON.stringify(text)}`);
  // Redis numbers its databases with a C int: a larger number is refused here, not retried for a lease as though the
  // server might come to have it.
  if (Number(text) > MAX_DB) refuse(url, `the database must be a number up to ${MAX_DB}, not ${text}`);
  return Number(text);
}

/** Parses a queue URL; `windows` refuses unix sockets (there are none there). */
export function parseRedisUrl(url: string, options: { windows?: boolean } = {}): RedisTarget {
  // Before URL parses it: a list of hosts is not a URL's host.
  if (/^redis\+sentinel:\/\//i.test(url)) return parseSentinelUrl(url, { refuse, parseDb, decodePart });
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refuse(
      url,
      "not a URL; expected redis://host:port/db (a password with / ? # @ or a space in it is written %-escaped)",
    );
  }
  switch (parsed.protocol) {
    case "redis:":
    case "rediss:": {
      if (!parsed.hostname) refuse(url, "no host; expected redis://host:port/db");
      const db = parseDb(url, parsed.pathname.replace(/^\//, ""));
      return {
        host: parsed.hostname.replace(/^\[(.*)\]$/, "$1"),
        port: parsed.port ? Number(parsed.port) : 6379,
        db,
        username: parsed.username ? decodePart(url, parsed.username, "user name") : undefined,
        password: parsed.password ? decodePart(url, parsed.password, "password") : undefined,
        ...(parsed.protocol === "rediss:" ? { tls: tlsFiles(url, parsed.searchParams) } : {}),
      };
    }
    case "redis+unix:": {
      if (options.windows) refuse(url, "there are no unix sockets on Windows; use redis://host:port/db");
      if (parsed.hostname) refuse(url, "a unix socket URL has no host: redis+unix:///path/to/redis.sock?db=0");
      if (!parsed.pathname || parsed.pathname === "/") refuse(url, "no socket path");
      const password = parsed.searchParams.get("pass") ?? parsed.searchParams.get("password") ?? undefined;
      return {
        path: decodePart(url, parsed.pathname, "socket path"),
        db: parseDb(url, parsed.searchParams.get("db")),
        password,
      };
    }
    case "redis-sentinel:":
    case "sentinel:":
      return refuse(url, "a Sentinel URL is written redis+sentinel://host:port[,host:port...]/service/db");
    case "redis-cluster:":
    case "redis+cluster:":
      return refuse(url, "Redis Cluster is not supported; give one server, Sentinel, or a proxy in front of one");
    default:
      return refuse(url, `${parsed.protocol}// is not a Redis URL; expected redis://host:port/db`);
  }
}

/** The `ca`, `cert` and `key` parameters of a rediss:// URL; a certificate needs its key and the other way round. */
function tlsFiles(url: string, params: URLSearchParams): TlsFiles {
  const files: TlsFiles = {};
  for (const name of ["ca", "cert", "key"] as const) {
    const value = params.get(name);
    if (value === "") refuse(url, `the ${name} parameter names no file`);
    if (value !== null) files[name] = value;
  }
  if ((files.cert === undefined) !== (files.key === undefined)) {
    refuse(url, "a client certificate needs both cert= and key=");
  }
  return files;
}

/** Checks a crawl's key: the name its Redis keys start with. */
export function checkQueueKey(key: string): string {
  if (key === "") throw new TypeError("queue key is empty");
  // deno-lint-ignore no-control-regex -- control characters are exactly what this refuses
  if (/[\s\x00-\x1f\x7f]/.test(key)) {
    throw new TypeError(`queue key ${JSON.stringify(key)} has spaces or control characters`);
  }
  if (key.length > 200) throw new TypeError("queue key is longer than 200 characters");
  return key;
}
