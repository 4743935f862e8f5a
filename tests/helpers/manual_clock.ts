/**
 * A clock moved by hand, for code that takes its timers as a parameter (src/serve/http_server.ts's `timers`): a test
 * checks a 15 s deadline by moving the clock 15 s, in no time. Timers fire in the order they are due, each with the
 * clock set to its due time; timers set by a callback fire in the same `advance` when they fall due within it.
 */
import { setImmediate } from "node:timers";

export class ManualClock {
  #now = 0;
  #next = 1;
  readonly #pending = new Map<number, { at: number; callback: () => void }>();

  /** Milliseconds since the clock was made. */
  now(): number {
    return this.#now;
  }

  readonly setTimeout = (callback: () => void, ms: number): unknown => {
    const id = this.#next++;
    this.#pending.set(id, { at: this.#now + Math.max(0, ms), callback });
    return id;
  };

  readonly clearTimeout = (handle: unknown): void => {
    this.#pending.delete(handle as number);
  };

  /** Timers not yet fired nor cleared. */
  pending(): number {
    return this.#pending.size;
  }

  /**
   * Moves the clock `ms` forward, firing what falls due. Lets pending I/O callbacks run first (one macrotask), so that
   * bytes already on a loopback socket are handled at the time they were sent rather than after the jump.
   */
  async advance(ms: number): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    const until = this.#now + ms;
    for (;;) {
      let due: [number, { at: number; callback: () => void }] | undefined;
      for (const entry of this.#pending) if (entry[1].at <= until && (!due || entry[1].at < due[1].at)) due = entry;
      if (!due) break;
      this.#pending.delete(due[0]);
      this.#now = due[1].at;
      due[1].callback();
    }
    this.#now = until;
  }
}
