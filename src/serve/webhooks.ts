/**
 * Calling a webhook: a JSON POST, tried again after a failure (a refused connection, no answer within the timeout,
 * a 5xx or 429 answer) with growing waits, and given up on after the last try with a line in the service's log. A
 * delivery runs on its own: the caller does not wait for it, so a slow or hung webhook server holds nothing but
 * its own connection and timer. The URL is named masked wherever it is logged: a chat service's webhook URL is its
 * secret.
 */
import type { Logger } from "../spider/types.ts";
import { maskWebhookUrl } from "./secrets.ts";

export interface WebhookOptions {
  /** How long one try may take, connecting to the end of the answer (10 000 ms). */
  timeoutMs?: number;
  /** The waits before the second, third, ... try: their count + 1 is the number of tries ([2 000, 10 000]). */
  retryDelaysMs?: readonly number[];
  log: Logger;
}

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
export const DEFAULT_WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [2_000, 10_000];

/** Why one try failed, or undefined when the server took the payload (any 2xx). */
async function tryOnce(
  url: string,
  body: string,
  timeoutMs: number,
): Promise<{ why: string; retry: boolean } | undefined> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      signal: AbortSignal.timeout(timeoutMs),
      // A webhook answers where it is asked; following a redirect would post the payload somewhere else.
      redirect: "manual",
    });
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === "TimeoutError";
    const why = timedOut ? `no answer within ${timeoutMs / 1000} s` : (error as Error).message;
    return { why, retry: true };
  }
  // The body is read (and dropped) either way, so the connection is released.
  await response.body?.cancel().catch(() => {});
  if (response.status >= 200 && response.status < 300) return undefined;
  return { why: `HTTP ${response.status}`, retry: response.status >= 500 || response.status === 429 };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Delivers webhooks and remembers the ones under way, so the service can wait for them as it stops. */
export class WebhookSender {
  readonly #timeoutMs: number;
  readonly #delays: readonly number[];
  readonly #log: Logger;
  readonly #inFlight = new Set<Promise<boolean>>();

  constructor(options: WebhookOptions) {
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
    this.#delays = options.retryDelaysMs ?? DEFAULT_WEBHOOK_RETRY_DELAYS_MS;
    this.#log = options.log;
  }

  /**
   * Starts delivering `payload` to `url` and returns at once; the promise (for tests and shutdown) resolves with
   * whether the server took it, and never rejects. `what` names the delivery in log lines ("job books-1 ended").
   */
  send(url: string, payload: unknown, what: string): Promise<boolean> {
    const delivery = this.#deliver(url, JSON.stringify(payload), what);
    this.#inFlight.add(delivery);
    void delivery.finally(() => this.#inFlight.delete(delivery));
    return delivery;
  }

  /** Waits for deliveries under way, at most `limitMs`: a hung server must not hold the service's stop for long. */
  async settle(limitMs: number): Promise<void> {
    if (this.#inFlight.size === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const limit = new Promise((resolve) => timer = setTimeout(resolve, limitMs));
    await Promise.race([Promise.allSettled([...this.#inFlight]), limit]);
    clearTimeout(timer);
    if (this.#inFlight.size > 0) this.#log.warning(`${this.#inFlight.size} webhook calls still under way at stop`);
  }

  async #deliver(url: string, body: string, what: string): Promise<boolean> {
    const tries = this.#delays.length + 1;
    const masked = maskWebhookUrl(url);
    for (let attempt = 1; attempt <= tries; attempt++) {
      const failure = await tryOnce(url, body, this.#timeoutMs).catch((error) => ({
        why: (error as Error).message,
        retry: false,
      }));
      if (!failure) {
        if (attempt > 1) this.#log.info(`webhook ${masked} for ${what} delivered at try ${attempt}`);
        return true;
      }
      const last = attempt === tries || !failure.retry;
      this.#log.warning(
        `webhook ${masked} for ${what}: try ${attempt} of ${tries} failed (${failure.why})` +
          (last ? ", giving up" : `, trying again in ${this.#delays[attempt - 1] / 1000} s`),
      );
      if (last) return false;
      await sleep(this.#delays[attempt - 1]);
    }
    return false;
  }
}
