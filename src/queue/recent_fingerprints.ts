/**
 * Fingerprints this process knows the shared duplicate filter already holds: requests it has pushed or leased. A
 * page yields mostly links seen before (a site's menu, "related" boxes), and asking Redis about each one again was
 * most of what a page cost it (24 of 27 commands a page for a spider yielding 25 links). Bounded: two generations of
 * at most `capacity / 2` each; when the young one fills, the old one is dropped and the young one becomes old, so
 * lookups and inserts stay O(1) and memory stays flat, and what was used recently is kept.
 *
 * A fingerprint here is only ever one the filter has: forgetting one costs a question to Redis, never a page.
 *
 * Each generation is a FingerprintSet (128-bit keys in a table of words) rather than a Set of 32-character strings:
 * a third of the memory, and nothing for the garbage collector to walk.
 */
import { FingerprintSet } from "./fingerprint_set.ts";

/** Fingerprints kept by default: about 8 MB of memory at most. */
export const RECENT_FINGERPRINTS = 200_000;

export class RecentFingerprints {
  #young = new FingerprintSet();
  #old = new FingerprintSet();
  readonly #half: number;

  constructor(capacity = RECENT_FINGERPRINTS) {
    this.#half = Math.max(1, Math.floor(capacity / 2));
  }

  has(fingerprint: string): boolean {
    return this.#young.has(fingerprint) || this.#old.has(fingerprint);
  }

  /** Adds a fingerprint (at least its first 32 hex digits, lower case). */
  add(fingerprint: string): void {
    if (this.#young.has(fingerprint)) return;
    if (this.#young.size >= this.#half) {
      this.#old = this.#young;
      this.#young = new FingerprintSet();
    }
    this.#young.add(fingerprint);
  }

  /** How many are kept now. */
  get size(): number {
    return this.#young.size + this.#old.size;
  }
}
