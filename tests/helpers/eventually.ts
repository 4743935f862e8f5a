/** Waiting in tests for something another process does. */

/** Polls `check` every 100 ms until it returns something other than undefined; fails after 60 s (a guard only). */
export async function eventually<T>(what: string, check: () => T | undefined | Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}
