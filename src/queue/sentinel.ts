/**
 * The ioredis options that find the queue's master through Redis Sentinel. The connection otherwise stays what
 * redis_client.ts makes it: the same timeouts, the same reconnects, the same server check on the master found.
 */
import type { Redis } from "ioredis";
import { QueueError } from "../errors.ts";
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
    // Plain TCP to the Sentinels and to the master they name: there is no TLS form of the Sentinel URL (yet).
    enableTLSForSentinelMode: false,
    // A master that was demoted while the connection stayed open (the old master back as a replica, or a network
    // split) answers writes with READONLY: the connection is dropped and made again, asking the Sentinels where the
    // master is now, and the failed call is retried by the queue like any other.
    reconnectOnError: (error: Error) => /^READONLY\b/.test(error.message),
  };
}

/**
 * Connects within `timeoutMs`: with Sentinels ioredis keeps asking them until one names a master that answers, so
 * opening a queue whose master is down would never fail. Two cases end the attempt at once, as a refused connection
 * to a single server does: a whole pass over the Sentinels in which none named a master (all down, say: the caller's
 * rules decide whether to try again), and Sentinels that know no master of that name (a mistake in the URL or in
 * their configuration: a QueueError saying so, which is not tried again). Otherwise, at the deadline, the caller sees
 * why the last try failed.
 */
export async function connectWithin(
  redis: Redis,
  sentinel: SentinelTarget,
  label: string,
  timeoutMs: number,
): Promise<void> {
  // ioredis reports what each Sentinel answered only as sentinelError events, and the end of a pass in which none
  // named a master as an error event ("All sentinels are unreachable"). A Sentinel that knows no such master answers
  // an error in Redis 7, null in older ones.
  let unknownService = false;
  let masterFailed: unknown;
  const onSentinelError = (error: Error) => {
    if (/No such master with that name|invalid reply: null\b/i.test(error?.message ?? "")) unknownService = true;
  };
  let fail: (error: unknown) => void = () => {};
  const failed = new Promise<never>((_, reject) => fail = reject);
  const onError = (error: Error) => {
    if (!/^All sentinels are unreachable\b/.test(error?.message ?? "")) {
      masterFailed = error;
      return;
    }
    fail(
      unknownService
        ? new QueueError(`no Sentinel of ${label} knows a master named ${JSON.stringify(sentinel.service)}`)
        : error,
    );
  };
  redis.on("sentinelError", onSentinelError);
  redis.on("error", onError);
  const timer = setTimeout(
    () => fail(masterFailed ?? new Error(`no Sentinel named a master that answered within ${timeoutMs / 1000} s`)),
    timeoutMs,
  );
  try {
    await Promise.race([redis.connect(), failed]);
  } catch (error) {
    // Stops ioredis going round again; the caller closes the client too.
    redis.disconnect();
    throw error;
  } finally {
    clearTimeout(timer);
    redis.off("sentinelError", onSentinelError);
    redis.off("error", onError);
  }
}
