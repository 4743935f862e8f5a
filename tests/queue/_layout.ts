/**
 * Writing into a crawl's Redis keys by hand, the way another program (or someone at redis-cli) might: entries in
 * a host's list at a priority, with that host in the priority's host list and the priority in the set, exactly
 * where the queue's scripts look (src/queue/redis_scripts.ts describes the layout).
 */
import { keyPrefix } from "../../src/queue/redis_frontier.ts";
import type { RedisServer } from "../helpers/redis.ts";

/** The list of entries of priority `prio` to `host`, for crawl `key`. */
export function hostList(key: string, prio: number | string, host: string): string {
  return `${keyPrefix(key)}:q:${prio}:${host}`;
}

/** Every entry waiting in crawl `key`'s queue, in the order of the host lists (for looking, not leasing). */
export async function waitingEntries(redis: RedisServer, key: string): Promise<string[]> {
  const lists = (await redis.command("KEYS", `${keyPrefix(key).replace(/[{}]/g, "\\$&")}:q:*`) as string[]).sort();
  const out: string[] = [];
  for (const list of lists) out.push(...await redis.command("LRANGE", list, 0, -1) as string[]);
  return out;
}

/** Appends raw entries to `host`'s list at `prio` in crawl `key`, as the queue's scripts would. */
export async function pushRaw(
  redis: RedisServer,
  key: string,
  prio: number | string,
  host: string,
  ...entries: string[]
): Promise<void> {
  const length = Number(await redis.command("RPUSH", hostList(key, prio, host), ...entries));
  if (length === entries.length) await listHost(redis, key, prio, host);
}

/**
 * Puts `host` in the host list of `prio` and the priority in the set, where a lease will find whatever is at
 * hostList(key, prio, host). Written last, after that key: a crawl running meanwhile leases only what is complete.
 */
export async function listHost(redis: RedisServer, key: string, prio: number | string, host: string): Promise<void> {
  const prefix = keyPrefix(key);
  await redis.command("RPUSH", `${prefix}:hosts:${prio}`, host);
  await redis.command("ZADD", `${prefix}:prios`, Number(prio) || 0, String(prio));
}

/** A held entry as the queue keeps it: "PRIO\nHOST\n" and the encoded request. */
export function heldEntry(prio: number, host: string, encoded: string): string {
  return `${prio}\n${host}\n${encoded}`;
}
