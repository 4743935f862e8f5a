/**
 * Queue URLs: `redis://[:password@]host:port/db` and `redis+unix:///path?db=N&pass=...`. Anything else is refused
 * with a message saying why (a TypeError: a bad value, exit status 2), and passwords never appear in one.
 */
import { maskUrl } from "../log.ts";

/** Where a Redis server is and how to log in. */
export interface RedisTarget {
  host?: string;
  port?: number;
  /** Unix socket path, for redis+unix:// URLs. */
  path?: string;
  db: number;
  username?: string;
  password?: string;
}

function refuse(url: string, why: string): never {
  throw new TypeError(`queue URL ${maskUrl(url)}: ${why}`);
}

function parseDb(url: string, text: string | null): number {
  if (text === null || text === "") return 0;
  if (!/^\d+$/.test(text)) refuse(url, `the database must be a number, not ${JSON.stringify(text)}`);
  return Number(text);
}

/** Parses a queue URL; `windows` refuses unix sockets (there are none there). */
export function parseRedisUrl(url: string, options: { windows?: boolean } = {}): RedisTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refuse(url, "not a URL; expected redis://host:port/db");
  }
  switch (parsed.protocol) {
    case "redis:": {
      if (!parsed.hostname) refuse(url, "no host; expected redis://host:port/db");
      const db = parseDb(url, parsed.pathname.replace(/^\//, ""));
      return {
        host: parsed.hostname.replace(/^\[(.*)\]$/, "$1"),
        port: parsed.port ? Number(parsed.port) : 6379,
        db,
        username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
        password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
      };
    }
    case "redis+unix:": {
      if (options.windows) refuse(url, "there are no unix sockets on Windows; use redis://host:port/db");
      if (parsed.hostname) refuse(url, "a unix socket URL has no host: redis+unix:///path/to/redis.sock?db=0");
      if (!parsed.pathname || parsed.pathname === "/") refuse(url, "no socket path");
      const password = parsed.searchParams.get("pass") ?? parsed.searchParams.get("password") ?? undefined;
      return { path: decodeURIComponent(parsed.pathname), db: parseDb(url, parsed.searchParams.get("db")), password };
    }
    case "rediss:":
      return refuse(url, "TLS to Redis (rediss://) is not supported yet; use a private network or a TLS tunnel");
    case "redis-sentinel:":
    case "sentinel:":
      return refuse(url, "Redis Sentinel is not supported; give one server, or a proxy in front of one");
    case "redis-cluster:":
      return refuse(url, "Redis Cluster is not supported; give one server, or a proxy in front of one");
    default:
      return refuse(url, `${parsed.protocol}// is not a Redis URL; expected redis://host:port/db`);
  }
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
