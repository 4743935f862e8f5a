/**
 * The one retry loop of the queue: try, and after a failure wait a little longer each time (100 ms more per failure,
 * at most a second) until it works or the caller gives up. Opening the Redis frontier and every script call use it.
 */

/** The wait after failure number `attempt` (0 for the first): 100 ms, 200 ms, ... up to 1 s. */
export function backoffMs(attempt: number): number {
  return Math.min(1000, 100 * (attempt + 1));
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `operation` until it resolves, and resolves with its value. After each failure `onFailure(error, attempt)`
 * decides: it throws to give up (what it throws is what `retry` rejects with), or returns nothing to wait the backoff,
 * or a number of milliseconds to wait at most (so that a deadline is not overshot).
 */
export async function retry<T>(
  operation: (attempt: number) => Promise<T>,
  onFailure: (error: unknown, attempt: number) => number | void,
  sleep: (ms: number) => Promise<void> = realSleep,
): Promise<T> {
  for (let attempt = 0;; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      const most = onFailure(error, attempt);
      await sleep(Math.max(0, Math.min(backoffMs(attempt), most ?? Infinity)));
    }
  }
}
