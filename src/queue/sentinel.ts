/**
 * The ioredis options that find the queue's master through Redis Sentinel. The connection otherwise stays what
 * redis_client.ts makes it: the same timeouts, the same reconnects, the same server check on the master found.
 */
import type { Redis } from "ioredis";
import type { SentinelTarget } from "../settings/redis_url.ts";

/** Options for ioredis's constructor in place of `host` and `port`. */
export function sentinelOptions(sentinel: SentinelTarget, timeoutMs: number): Record<string, unknown> {
  return {
    sentinels: sentinel.hosts.map(({ host, port }) => ({ host, port })),
    name: sentinel.service,
    role: "master",
    ...(sentinel.password !== undefined ? { sentinelPassword: sentinel.password } : {}),
    // A Sentinel that hangs is given up on as fast as a server that does.
    sentinelCommandTimeout: timeoutMs,
    // Round the Sentinels again and again, at most a second apart, and never give up. Giving up is final in ioredis
    // (the client ends and never reconnects), and it walks its list of Sentinels across reconnects, so a master that
    // refused three reconnects in a row while it was being replaced (one per Sentinel) ended the client for good.
    // Opening the queue has its own deadline instead (connectWithin), and after that the queue's lease-bounded rules
    // decide when to give up, as with one server.
    sentinelRetryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
    // Sentinel answers with the addresses the servers announce; they are used as given (no NAT mapping).
    enableTLSForSentinelMode: false,
    // A master that was demoted while the connection stayed open (the old master back as a replica, or a network
    // split) answers writes with READONLY: the connection is dropped and made again, asking the Sentinels where the
    // master is now, and the failed call is retried by the queue like any other.
    reconnectOnError: (error: Error) => /^READONLY\b/.test(error.message),
  };
}

/**
 * Connects within `timeoutMs`: with Sentinels ioredis keeps asking them until one names a master that answers, so
 * a queue whose Sentinels are all down (or name a master that is down) would never fail to open. At the deadline
 * the attempt is dropped and the caller sees why the last try failed.
 */
export async function connectWithin(redis: Redis, timeoutMs: number, lastError: () => unknown): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      redis.disconnect();
      reject(lastError() ?? new Error(`no Sentinel named a master that answered within ${timeoutMs / 1000} s`));
    }, timeoutMs);
  });
  try {
    await Promise.race([redis.connect(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
