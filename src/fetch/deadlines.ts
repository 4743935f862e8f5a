/**
 * The download timeouts of the requests in flight, under one timer. A timer per request was an object of about 700
 * bytes on Deno 2 (whose `setTimeout` makes Node's `Timeout`) held for the whole exchange, and a timer list insertion
 * and removal per page. Here a request's deadline is an entry in a set; the one timer is set for the earliest deadline
 * and, when it fires, ends the requests whose time is up and sets itself for the next. An entry removed early does
 * not move the timer: it fires for nothing at worst, and sets itself again. Each downloader has its own.
 */

/** The longest delay a timer takes (a signed 32-bit count of milliseconds). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A request's deadline, to hand back to {@link Deadlines.remove} when the request is over. */
export interface Deadline {
  /** Epoch ms at which it expires. */
  readonly at: number;
  readonly onExpire: () => void;
}

export class Deadlines {
  readonly #pending = new Set<Deadline>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The epoch ms the timer is set for; Infinity when it is not set. */
  #armedFor = Infinity;
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Calls `onExpire` once `ms` milliseconds have passed, unless the deadline is removed first. */
  add(ms: number, onExpire: () => void): Deadline {
    const deadline: Deadline = { at: this.#now() + ms, onExpire };
    this.#pending.add(deadline);
    if (deadline.at < this.#armedFor) this.#arm(deadline.at);
    return deadline;
  }

  /** Forgets a deadline (its request ended); the timer stops when none is left. */
  remove(deadline: Deadline): void {
    this.#pending.delete(deadline);
    if (this.#pending.size === 0 && this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#armedFor = Infinity;
    }
  }

  /** How many deadlines are pending. */
  get size(): number {
    return this.#pending.size;
  }

  /** Whether the timer is set (it is not once no deadline is pending). */
  get armed(): boolean {
    return this.#timer !== undefined;
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#armedFor = at;
    this.#timer = setTimeout(() => this.#fire(), Math.min(Math.max(0, at - this.#now()), MAX_TIMER_MS));
  }

  #fire(): void {
    this.#timer = undefined;
    this.#armedFor = Infinity;
    const now = this.#now();
    const expired: Deadline[] = [];
    let next = Infinity;
    for (const deadline of this.#pending) {
      if (deadline.at <= now) expired.push(deadline);
      else if (deadline.at < next) next = deadline.at;
    }
    for (const deadline of expired) this.#pending.delete(deadline);
    if (next !== Infinity) this.#arm(next);
    // Called last: an expiry that adds or removes deadlines finds the timer set as it should be.
    for (const deadline of expired) deadline.onExpire();
  }
}
