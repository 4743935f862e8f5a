/**
 * Warnings about entries dropped from a store because they were not requests: the first few one line each, then
 * only counts. A queue full of junk (a million entries written by another program, say) would otherwise bury the
 * log under a line per entry, and writing those lines would be most of what the process does.
 */
import type { Logger } from "../spider/types.ts";

/** Entries described one by one before the rest are only counted. */
export const BAD_ENTRIES_SHOWN = 5;

export class BadEntryLog {
  readonly #log: Logger;
  readonly #what: string;
  #total = 0;
  /** Dropped since the last summary and not shown. */
  #unshown = 0;

  /** `what` names the store in the lines ("the queue", "the checkpoint"). */
  constructor(log: Logger, what: string) {
    this.#log = log;
    this.#what = what;
  }

  /** Every entry dropped so far, shown or not. */
  get total(): number {
    return this.#total;
  }

  /** One entry (or `count` of one kind) dropped, for the reason `why`. */
  report(why: string, count = 1): void {
    this.#total += count;
    if (this.#total - count < BAD_ENTRIES_SHOWN) {
      const more = this.#total > BAD_ENTRIES_SHOWN ? `; further ones are counted, not shown` : "";
      this.#log.warning(`dropped from ${this.#what}: ${why}${more}`);
    } else {
      this.#unshown += count;
    }
  }

  /** Says how many were dropped without a line of their own since the last summary, if any. Call it now and then. */
  summarise(): void {
    if (this.#unshown === 0) return;
    this.#log.warning(
      `dropped ${this.#unshown} more entries from ${this.#what} that were not usable requests ` +
        `(${this.#total} in all, counted in queue_bad)`,
    );
    this.#unshown = 0;
  }
}
