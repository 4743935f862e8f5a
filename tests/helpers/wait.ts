/** Waiting in tests: for a time to pass (pacing a client, never as synchronisation) and for a condition to hold. */

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** How {@link waitUntil} polls. */
export interface WaitOptions {
  /** Fails after this long (a guard against hanging, not a timing under test); 30 s by default. */
  timeoutMs?: number;
  /** Time between two checks; 50 ms by default. */
  everyMs?: number;
}

/**
 * Polls `check` until it returns something other than `undefined` or `false`, and resolves with that. Fails with
 * "timed out waiting for WHAT" after `timeoutMs`.
 */
export async function waitUntil<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  options: WaitOptions = {},
): Promise<T> {
  const { timeoutMs = 30_000, everyMs = 50 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() >= deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}
