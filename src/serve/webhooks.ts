/**
 * Delivering alerts to webhooks: a JSON POST per alert, kept in the alert outbox (alert_outbox.ts, in jobs.db) from
 * the moment it is made until a server takes it. A try that fails in a way worth repeating (a refused connection, no
 * answer within the timeout, a 5xx or 429) is tried again after a growing wait, also across restarts of the service,
 * until the alert is older than maxAgeMs; a 4xx other than 429 says the URL or the payload is wrong and is given up at
 * once. At most maxQueued alerts wait: past that the oldest are given up. Every failure and every alert given up is a
 * line in the service's log saying why, with the URL masked (a chat service's webhook URL is its secret).
 *
 * Deliveries run on their own: the caller does not wait for them, so a slow or hung webhook server holds nothing but
 * its own connections and a timer.
 */
import type { Logger } from "../spider/types.ts";
import type { AlertOutbox, QueuedAlert } from "./alert_outbox.ts";
import { maskWebhookUrl } from "./secrets.ts";

export interface WebhookOptions {
  /** Where alerts wait until they are delivered. */
  outbox: AlertOutbox;
  /** How long one try may take, connecting to the end of the answer (10 000 ms). */
  timeoutMs?: number;
  /** The waits after the first, second, ... failed try; the last one repeats ({@link DEFAULT_WEBHOOK_RETRY_DELAYS_MS}). */
  retryDelaysMs?: readonly number[];
  /** An alert not delivered this long after it was made is given up (24 h). */
  maxAgeMs?: number;
  /** At most this many alerts wait; past it the oldest are given up (1 000). */
  maxQueued?: number;
  /** The clock (Date.now). */
  now?: () => number;
  log: Logger;
}

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
/** 2 s, 10 s, 30 s, 1 min, 5 min, 15 min, then every 30 min: a webhook server down for a night gets ~50 tries. */
export const DEFAULT_WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [
  2_000,
  10_000,
  30_000,
  60_000,
  300_000,
  900_000,
  1_800_000,
];
export const DEFAULT_ALERT_MAX_AGE_MS = 24 * 3600_000;
export const DEFAULT_ALERT_MAX_QUEUED = 1_000;
/** Tries under way at once: a thousand alerts queued for a hung server must not open a thousand connections. */
const MAX_CONCURRENT_TRIES = 16;

/** Every URL in a (short) error message shown as its scheme and host. */
export function maskUrlsIn(text: string): string {
  return text.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s()<>"']+/gi, (url) => maskWebhookUrl(url));
}

/** Why one try failed, or undefined when the server took the payload (any 2xx). */
async function tryOnce(
  alert: QueuedAlert,
  timeoutMs: number,
): Promise<{ why: string; retry: boolean } | undefined> {
  let response: Response;
  try {
    response = await fetch(alert.url, {
      method: "POST",
      // The same key on every try of one alert, across restarts: a receiver that saw it can drop the copy (a service
      // killed after the server took an alert but before it was crossed off sends it again at its next start).
      headers: { "content-type": "application/json", "idempotency-key": `netweir-alert-${alert.seq}` },
      body: alert.body,
      signal: AbortSignal.timeout(timeoutMs),
      // A webhook answers where it is asked; following a redirect would post the payload somewhere else.
      redirect: "manual",
    });
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === "TimeoutError";
    // Deno's fetch names the URL in its errors ("error sending request for url (...)"): its path is the secret.
    const why = timedOut ? `no answer within ${timeoutMs / 1000} s` : maskUrlsIn((error as Error).message);
    return { why, retry: true };
  }
  // The body is read (and dropped) either way, so the connection is released.
  await response.body?.cancel().catch(() => {});
  if (response.status >= 200 && response.status < 300) return undefined;
  return { why: `HTTP ${response.status}`, retry: response.status >= 500 || response.status === 429 };
}

/** "2 s", "1.5 min", "24 h": a wait in the unit a reader of the log takes in at once. */
export function spanText(ms: number): string {
  const round = (n: number) => String(Number(n.toPrecision(3)));
  if (ms < 60_000) return `${round(ms / 1000)} s`;
  if (ms < 3600_000) return `${round(ms / 60_000)} min`;
  return `${round(ms / 3600_000)} h`;
}

/** Delivers the outbox's alerts and remembers the tries under way, so the service can wait for them as it stops. */
export class WebhookSender {
  readonly #outbox: AlertOutbox;
  readonly #timeoutMs: number;
  readonly #delays: readonly number[];
  readonly #maxAgeMs: number;
  readonly #maxQueued: number;
  readonly #now: () => number;
  readonly #log: Logger;
  readonly #inFlight = new Map<number, Promise<void>>();
  /** Callers of send() waiting for their alert's fate, by seq. */
  readonly #outcomes = new Map<number, (delivered: boolean) => void>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** No try starts once stop() is called; the results of tries under way are still recorded until it returns. */
  #stopped = false;
  /** stop() has returned: the outbox may be closed. */
  #closed = false;

  constructor(options: WebhookOptions) {
    this.#outbox = options.outbox;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
    this.#delays = options.retryDelaysMs ?? DEFAULT_WEBHOOK_RETRY_DELAYS_MS;
    this.#maxAgeMs = options.maxAgeMs ?? DEFAULT_ALERT_MAX_AGE_MS;
    this.#maxQueued = options.maxQueued ?? DEFAULT_ALERT_MAX_QUEUED;
    this.#now = options.now ?? Date.now;
    this.#log = options.log;
  }

  /**
   * Starts on the alerts a service before this one left undelivered, saying how many. Each is tried at once rather
   * than at the next try its backoff had set: a restart is often the fix (a webhook URL corrected, a network back),
   * and the restart itself is the only wait an operator should have to make. Their count of tries is kept.
   */
  resume(): void {
    const waiting = this.#outbox.dueBy(this.#now());
    if (waiting > 0) this.#log.info(`${waiting} undelivered alerts from before this start: trying them again`);
    this.#pump();
  }

  /**
   * Keeps `payload` for `url` and starts delivering it; returns at once. The promise (for tests) resolves with
   * whether a server took it, once it is delivered or given up by this sender, and never rejects. `what` names the
   * alert in log lines ("job books-1 ended").
   */
  send(url: string, payload: unknown, what: string): Promise<boolean> {
    if (this.#stopped) {
      this.#log.error(`alert for ${what} not kept: the service is stopping`);
      return Promise.resolve(false);
    }
    const alert = this.#outbox.add({ url, body: JSON.stringify(payload), what }, this.#now());
    const outcome = new Promise<boolean>((resolve) => this.#outcomes.set(alert.seq, resolve));
    // After the caller's synchronous work: a job's end and its alert's row are one transaction (JobStore.together),
    // which must commit before the pump starts transactions of its own on that connection.
    queueMicrotask(() => this.#pump());
    return outcome;
  }

  /** How many alerts wait to be delivered (those under way included). */
  queued(): number {
    return this.#stopped ? 0 : this.#outbox.count();
  }

  /**
   * Stops: no try starts any more, and this waits for tries under way, at most `limitMs` (a hung server must not hold
   * the service's stop for long). Alerts not delivered stay in the outbox for the next start.
   */
  async stop(limitMs: number): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    if (this.#inFlight.size > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const limit = new Promise((resolve) => timer = setTimeout(resolve, limitMs));
      await Promise.race([Promise.allSettled([...this.#inFlight.values()]), limit]);
      clearTimeout(timer);
    }
    if (this.#inFlight.size > 0) {
      this.#log.warning(
        `${this.#inFlight.size} webhook calls still under way at stop: their alerts are tried again at the next start`,
      );
    }
    this.#closed = true;
    for (const resolve of this.#outcomes.values()) resolve(false);
    this.#outcomes.clear();
  }

  /** Gives up alerts past the bounds, starts the tries that are due, and sets the timer for the next one. */
  #pump(): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    try {
      this.#pumpOnce();
    } catch (error) {
      // jobs.db unreadable or full: said, and looked at again in a minute, rather than ending the service.
      this.#log.error(`alerts: ${(error as Error).message}; trying again in 1 min`);
      this.#timer = setTimeout(() => this.#pump(), 60_000);
    }
  }

  #pumpOnce(): void {
    const now = this.#now();
    const { tooOld, tooMany } = this.#outbox.dropBeyond(now - this.#maxAgeMs, this.#maxQueued);
    for (const alert of tooOld) this.#giveUp(alert, `not delivered within ${spanText(this.#maxAgeMs)}`);
    for (const alert of tooMany) this.#giveUp(alert, `more than ${this.#maxQueued} alerts wait, the oldest go first`);
    const room = MAX_CONCURRENT_TRIES - this.#inFlight.size;
    if (room > 0) {
      const due = this.#outbox.due(now, room + this.#inFlight.size).filter((alert) => !this.#inFlight.has(alert.seq));
      for (const alert of due.slice(0, room)) {
        const attempt = this.#attempt(alert).catch((error) => {
          this.#log.error(`alert for ${alert.what}: ${maskUrlsIn((error as Error).message)}`);
        }).finally(() => {
          this.#inFlight.delete(alert.seq);
          this.#pump();
        });
        this.#inFlight.set(alert.seq, attempt);
      }
    }
    this.#arm();
  }

  /** Wakes up when the next alert not under way is due (an alert under way re-arms when its try ends). */
  #arm(): void {
    let next: number | undefined;
    for (const alert of this.#outbox.due(Number.MAX_SAFE_INTEGER, this.#inFlight.size + 1)) {
      if (!this.#inFlight.has(alert.seq)) {
        next = alert.nextAt;
        break;
      }
    }
    if (next === undefined) return;
    // Already due but no room: the end of a try under way pumps again.
    if (next <= this.#now() && this.#inFlight.size >= MAX_CONCURRENT_TRIES) return;
    this.#timer = setTimeout(() => this.#pump(), Math.max(0, next - this.#now()));
  }

  async #attempt(alert: QueuedAlert): Promise<void> {
    const failure = await tryOnce(alert, this.#timeoutMs).catch((error) => ({
      why: maskUrlsIn((error as Error).message),
      retry: false,
    }));
    // Stopped past its wait: the outbox may be closed; the alert stays there for the next start.
    if (this.#closed) return;
    const attempt = alert.tries + 1;
    const masked = maskWebhookUrl(alert.url);
    if (!failure) {
      // Dropped for the bound while its try was under way (and logged so): the server has it after all.
      const after = this.#outbox.remove(alert.seq) ? "" : " after all";
      if (attempt > 1 || after) {
        this.#log.info(`webhook ${masked} for ${alert.what} delivered at try ${attempt}${after}`);
      }
      this.#settled(alert.seq, true);
      return;
    }
    const wait = this.#delays.length === 0 ? undefined : this.#delays[Math.min(attempt, this.#delays.length) - 1];
    const nextAt = wait === undefined ? undefined : this.#now() + wait;
    const tooLate = nextAt === undefined || nextAt > alert.createdAt + this.#maxAgeMs;
    const prefix = `webhook ${masked} for ${alert.what}: try ${attempt} failed (${failure.why})`;
    if (!failure.retry || tooLate) {
      this.#outbox.remove(alert.seq);
      const why = !failure.retry
        ? "the server refused it"
        : wait === undefined
        ? "no retries"
        : `the next would be more than ${spanText(this.#maxAgeMs)} after the alert`;
      this.#log.warning(`${prefix}, giving up (${why}): the alert is dropped`);
      this.#settled(alert.seq, false);
      return;
    }
    // Not there any more: dropped for the bound while its try was under way, which was logged then.
    if (!this.#outbox.failed(alert.seq, failure.why, nextAt)) return;
    this.#log.warning(`${prefix}, trying again in ${spanText(wait!)}`);
  }

  #giveUp(alert: QueuedAlert, why: string): void {
    const last = alert.lastError === null ? "" : `, last failure: ${alert.lastError}`;
    this.#log.error(
      `webhook ${maskWebhookUrl(alert.url)} for ${alert.what}: dropped undelivered after ${alert.tries} tries ` +
        `(${why}${last})`,
    );
    this.#settled(alert.seq, false);
  }

  #settled(seq: number, delivered: boolean): void {
    this.#outcomes.get(seq)?.(delivered);
    this.#outcomes.delete(seq);
  }
}
