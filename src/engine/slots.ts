/**
 * Per-host slots (C7): how many requests may be in flight to one host, and how long to wait between two starts.
 * With autothrottle the wait follows the host's latency (latency / target concurrency, as Scrapy's AutoThrottle),
 * backs off on 429 and 503, and honours Retry-After; it always stays between minDelay (or robots.txt's Crawl-delay,
 * when larger) and maxDelay.
 */

export interface SlotSettings {
  perDomain: number;
  minDelay: number;
  maxDelay: number;
  autothrottle: boolean;
  autothrottleTarget: number;
}

class Slot {
  active = 0;
  /** Seconds between two starts. */
  delay: number;
  /**
   * Epoch ms of the last start. The next start waits the delay from it, the delay as it is then: a delay raised
   * by a 429 or a Crawl-delay after a request started applies to the very next start, not only to the one after.
   */
  lastStart = -Infinity;
  /** Epoch ms before which nothing new starts, whatever the delay (Retry-After). */
  notBefore = 0;
  /** robots.txt Crawl-delay, a floor on the delay. */
  floor = 0;
  constructor(delay: number) {
    this.delay = delay;
  }
}

export class Slots {
  readonly #slots = new Map<string, Slot>();
  readonly #settings: SlotSettings;

  constructor(settings: SlotSettings) {
    this.#settings = settings;
  }

  #slot(host: string): Slot {
    let slot = this.#slots.get(host);
    if (!slot) {
      slot = new Slot(this.#settings.minDelay);
      this.#slots.set(host, slot);
    }
    return slot;
  }

  /** Epoch ms from which a request to the host may start; Infinity while all its slots are busy. */
  readyAt(host: string): number {
    const slot = this.#slot(host);
    if (slot.active >= this.#settings.perDomain) return Infinity;
    return Math.max(slot.lastStart + slot.delay * 1000, slot.notBefore);
  }

  start(host: string, now = Date.now()): void {
    const slot = this.#slot(host);
    slot.active++;
    slot.lastStart = now;
  }

  /** Records a finished request: its latency in seconds, its status (0 for a network failure), Retry-After. */
  finish(host: string, outcome: { latency: number; status: number; retryAfter?: number }, now = Date.now()): void {
    const slot = this.#slot(host);
    slot.active = Math.max(0, slot.active - 1);
    const { minDelay, maxDelay, autothrottle, autothrottleTarget } = this.#settings;
    const low = Math.max(minDelay, slot.floor);
    if (autothrottle) {
      const target = outcome.latency / autothrottleTarget;
      let next = (slot.delay + target) / 2;
      if (outcome.status === 429 || outcome.status === 503) next = Math.max(slot.delay * 2, target, 1);
      else if (outcome.status !== 200 || outcome.latency === 0) next = Math.max(next, slot.delay); // errors never speed up
      slot.delay = Math.min(maxDelay, Math.max(low, next));
    } else {
      slot.delay = low;
    }
    if (outcome.retryAfter !== undefined && outcome.retryAfter > 0) {
      slot.notBefore = Math.max(slot.notBefore, now + Math.min(outcome.retryAfter, Math.max(maxDelay, low)) * 1000);
    }
  }

  /** Sets robots.txt's Crawl-delay for a host: the delay never goes below it. */
  setFloor(host: string, seconds: number): void {
    const slot = this.#slot(host);
    slot.floor = Math.min(seconds, Math.max(this.#settings.maxDelay, this.#settings.minDelay));
    slot.delay = Math.max(slot.delay, slot.floor);
  }

  /** robots.txt's Crawl-delay for a host as far as it is known, in seconds (0: none). */
  crawlDelay(host: string): number {
    return this.#slots.get(host)?.floor ?? 0;
  }

  /** The current delay for a host, in seconds. */
  delay(host: string): number {
    return this.#slot(host).delay;
  }

  /** How many requests to a host are in flight. */
  active(host: string): number {
    return this.#slot(host).active;
  }
}
