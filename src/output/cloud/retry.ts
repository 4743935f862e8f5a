/**
 * Tries a request to a cloud store a few times: a dropped connection or a 5xx/429 answer is often gone a second later,
 * and an upload at the end of a long crawl is worth a few seconds' patience. Anything else (a 4xx) is final.
 */

/** Waits between tries, in seconds, before they are scaled. */
const DELAYS = [0.5, 1, 2, 4];

/** Whether an HTTP status is worth another try. */
export function retryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * Runs `attempt` until it returns a Response that is not retryable, or the tries run out: then the last Response is
 * returned, or the last network error thrown.
 */
export async function withRetries(
  attempt: () => Promise<Response>,
  options: { tries?: number; delayScale?: number } = {},
): Promise<Response> {
  const tries = options.tries ?? DELAYS.length + 1;
  const scale = options.delayScale ?? 1;
  for (let index = 0;; index++) {
    const last = index === tries - 1;
    try {
      const response = await attempt();
      if (last || !retryableStatus(response.status)) return response;
      await response.body?.cancel();
    } catch (error) {
      if (last) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, DELAYS[Math.min(index, DELAYS.length - 1)] * 1000 * scale));
  }
}
