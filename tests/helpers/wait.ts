/** Waiting in tests: for a time to pass (pacing a client, never as synchronisation) and for a condition to hold. */

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls `check` every `everyMs` until it returns something other than `undefined` or `false`, and resolves with that.
 * Fails with "timed out waiting for WHAT" after `timeoutMs`: a guard against hanging, never a timing under test.
 */
export async function waitUntil<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 30_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() >= deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}
