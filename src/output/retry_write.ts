/** Trying a shared feed's write again while its server is unreachable: the Redis stream and PostgreSQL feeds. */

/** How a write is tried again. */
export interface RetryRule {
  /** Whether a failure may pass by itself (the server restarting), rather than recur at every try. */
  transient: (error: unknown) => boolean;
  /** How long to keep trying; 0 for a write that must not be sent twice. */
  forMs: number;
  /** The error thrown for the failure that ends the tries. */
  fail: (error: unknown) => Error;
}

/** Runs `write`, again after a transient failure (0.2 s, then up to 1 s apart) until it succeeds or time is up. */
export async function retryWrite(write: () => Promise<unknown>, rule: RetryRule): Promise<void> {
  const started = Date.now();
  for (let attempt = 1;; attempt++) {
    try {
      await write();
      return;
    } catch (error) {
      if (!rule.transient(error) || Date.now() - started >= rule.forMs) throw rule.fail(error);
      await new Promise((resolve) => setTimeout(resolve, Math.min(attempt * 200, 1_000)));
    }
  }
}
