/**
 * Per-host slots (C7): how many requests may be in flight to one host, and how long to wait between two starts.
 * With autothrottle the wait follows the host's latency (latency / target concurrency, as Scrapy's AutoThrottle),
 * backs off on 429 and 503, and honours Retry-After; it always stays between minDelay (or robots.txt's Crawl-delay,
 * when larger) and maxDelay.
 *
 * A host's slot is dropped once it is idle: nothing in flight, its wait since the last start over and any
 * Retry-After past (at once when its last request finishes with no wait left, else at a sweep once a second). From then on a new slot behaves as the old one would have, given two things it cannot work out
 * again: robots.txt's Crawl-delay, kept for the 100,000 hosts that set one most recently (a host that comes back is
 * held to it from its first request on), and autothrottle's learned delay, kept for the 10,000 hosts idle most
 * recently.
 * So a crawl over 100,000 hosts keeps slots for the hosts it is working on, not for every host it has seen. Scrapy
 * drops a slot, learned delay and all, 60 s after its last use; here the learned delay outlives the slot.
 *
 * A host with an entry in the `hosts` setting has its own perDomain, delays and autothrottle (src/settings/hosts.ts),
 * looked up once when its slot is made, so a crawl without `hosts` pays nothing per request.
 */
import { settingsByHost } from "../settings/by_host.ts";

export interface SlotSettings {
  perDomain: number;
  minDelay: number;
  maxDelay: number;
  autothrottle: boolean;
  autothrottleTarget: number;
  /** Per-host settings (the `hosts` setting): a host's own perDomain, delays and autothrottle. */
  hosts?: Record<string, Record<string, unknown>>;
}

class Slot {
  /** The crawl's settings with the host's own over them, looked up once, when the slot is made. */
  readonly settings: SlotSettings;
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
  constructor(settings: SlotSettings, delay: number, floor: number) {
    this.settings = settings;
    this.delay = delay;
    this.floor = floor;
  }
}

/** Learned delays of dropped slots kept, most recent first out last. */
export const REMEMBERED_DELAYS = 10_000;
/**
 * robots.txt Crawl-delays kept, the most recently set: a number a host, for the hosts that have one. A host back after
 * this many others have set one starts as a new host does (one request, then its robots.txt check sets it again).
 */
export const REMEMBERED_FLOORS = 100_000;
/** Idle slots are looked for at most this often (ms of the clock). */
const SWEEP_MS = 1000;

export class Slots {
  readonly #slots = new Map<string, Slot>();
  /** The settings for a host: the crawl's, or its `hosts` entry over them. */
  readonly #settingsOf: (host: string) => SlotSettings;
  readonly #clock: () => number;
  /** Crawl-delay of the hosts that have one, slot or not, least recently set first (at most REMEMBERED_FLOORS). */
  readonly #floors = new Map<string, number>();
  /** Autothrottle's delay of dropped slots whose delay was not the start one, least recently dropped first. */
  readonly #learned = new Map<string, number>();
  /** Hosts whose slot had nothing in flight when last seen: the candidates for dropping. */
  readonly #idle = new Set<string>();
  #lastSweep = -Infinity;

  /** `clock` gives epoch ms (tests pass their own). */
  constructor(settings: SlotSettings, clock: () => number = Date.now) {
    this.#settingsOf = settingsByHost(settings, settings.hosts);
    this.#clock = clock;
  }

  #slot(host: string): Slot {
    let slot = this.#slots.get(host);
    if (!slot) {
      const floor = this.#floors.get(host) ?? 0;
      const learned = this.#learned.get(host);
      if (learned !== undefined) this.#learned.delete(host);
      const settings = this.#settingsOf(host);
      slot = new Slot(settings, learned ?? Math.max(settings.minDelay, floor), floor);
      this.#slots.set(host, slot);
    }
    return slot;
  }

  /** How many hosts have a slot now (for tests and benches). */
  get size(): number {
    return this.#slots.size;
  }

  /** What is kept per host now: slots, learned delays of hosts whose slot went, Crawl-delays (for the crawl's state). */
  get sizes(): { slots: number; learnedDelays: number; crawlDelays: number } {
    return { slots: this.#slots.size, learnedDelays: this.#learned.size, crawlDelays: this.#floors.size };
  }

  /** Drops the slots of idle hosts whose wait is over, at most once every SWEEP_MS. */
  #sweep(now: number): void {
    if (now - this.#lastSweep < SWEEP_MS) return;
    this.#lastSweep = now;
    for (const host of this.#idle) {
      const slot = this.#slots.get(host);
      if (slot === undefined || slot.active > 0) {
        this.#idle.delete(host);
        continue;
      }
      if (now < slot.lastStart + slot.delay * 1000 || now < slot.notBefore) continue;
      this.#idle.delete(host);
      this.#drop(host, slot);
    }
  }

  #drop(host: string, slot: Slot): void {
    this.#slots.delete(host);
    if (slot.delay !== Math.max(slot.settings.minDelay, slot.floor)) this.#remember(host, slot.delay);
  }

  #remember(host: string, delay: number): void {
    this.#learned.set(host, delay);
    if (this.#learned.size > REMEMBERED_DELAYS) this.#learned.delete(this.#learned.keys().next().value!);
  }

  /** Epoch ms from which a request to the host may start; Infinity while all its slots are busy. */
  readyAt(host: string): number {
    const slot = this.#slots.get(host);
    // No slot: nothing in flight and no wait left (a slot goes only then).
    if (slot === undefined) return -Infinity;
    if (slot.active >= slot.settings.perDomain) return Infinity;
    return Math.max(slot.lastStart + slot.delay * 1000, slot.notBefore);
  }

  start(host: string, now = this.#clock()): void {
    const slot = this.#slot(host);
    slot.active++;
    slot.lastStart = now;
    this.#sweep(now);
  }

  /** Records a finished request: its latency in seconds, its status (0 for a network failure), Retry-After. */
  finish(
    host: string,
    outcome: { latency: number; status: number; retryAfter?: number },
    now = this.#clock(),
  ): void {
    const slot = this.#slot(host);
    slot.active = Math.max(0, slot.active - 1);
    const { minDelay, maxDelay, autothrottle, autothrottleTarget } = slot.settings;
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
    if (slot.active === 0) {
      // Nothing to wait for (no delay, or it has passed already, as with a delay shorter than the latency): the slot
      // goes now rather than at the next sweep, so a crawl keeps slots only for hosts with requests in flight.
      if (now >= slot.lastStart + slot.delay * 1000 && now >= slot.notBefore) this.#drop(host, slot);
      else this.#idle.add(host);
    }
    this.#sweep(now);
  }

  /** Sets robots.txt's Crawl-delay for a host: the delay never goes below it. */
  setFloor(host: string, seconds: number): void {
    const slot = this.#slot(host);
    slot.floor = Math.min(seconds, Math.max(slot.settings.maxDelay, slot.settings.minDelay));
    slot.delay = Math.max(slot.delay, slot.floor);
    this.#floors.delete(host);
    if (slot.floor > 0) this.#floors.set(host, slot.floor);
    if (this.#floors.size > REMEMBERED_FLOORS) this.#floors.delete(this.#floors.keys().next().value!);
    // A slot made only to hold the floor is as idle as a new one.
    if (slot.active === 0) this.#idle.add(host);
  }

  /** robots.txt's Crawl-delay for a host as far as it is known, in seconds (0: none). */
  crawlDelay(host: string): number {
    return this.#floors.get(host) ?? 0;
  }

  /** The current delay for a host, in seconds. */
  delay(host: string): number {
    const slot = this.#slots.get(host);
    if (slot) return slot.delay;
    return this.#learned.get(host) ?? Math.max(this.#settingsOf(host).minDelay, this.#floors.get(host) ?? 0);
  }

  /** How many requests to a host may be in flight at once: per_domain, or its `hosts` entry's. */
  perDomain(host: string): number {
    return (this.#slots.get(host)?.settings ?? this.#settingsOf(host)).perDomain;
  }

  /** How many requests to a host are in flight. */
  active(host: string): number {
    return this.#slots.get(host)?.active ?? 0;
  }
}
