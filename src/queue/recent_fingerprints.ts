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
import { TwoGenerations } from "./two_generations.ts";

/** Fingerprints kept by default: about 8 MB of memory at most. */
export const RECENT_FINGERPRINTS = 200_000;

/** Fingerprints: at least their first 32 hex digits, lower case. */
export class RecentFingerprints extends TwoGenerations<string> {
  constructor(capacity = RECENT_FINGERPRINTS) {
    super(() => new FingerprintSet(), Math.floor(capacity / 2));
  }
}
