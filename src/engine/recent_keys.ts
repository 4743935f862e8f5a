/**
 * Keys of requests queued lately, kept to drop a link seen again (most of what a page yields: menus, "related"
 * boxes) at the cost of a hash lookup. Bounded: two generations, the old one dropped when the young one fills, so
 * what was used recently is kept and memory stays flat (about 3 MB at most at the default size). A key forgotten
 * only sends a link the whole way again, to the frontier's filter, which drops it.
 */
/** Keys a generation holds by default. */
export const KEYS_PER_GENERATION = 16_384;

export class RecentKeys {
  readonly #capacity: number;
  #young = new Set<string>();
  #old = new Set<string>();

  /** `capacity`: keys per generation. */
  constructor(capacity = KEYS_PER_GENERATION) {
    this.#capacity = capacity;
  }

  has(key: string): boolean {
    return this.#young.has(key) || this.#old.has(key);
  }

  add(key: string): void {
    if (this.#young.has(key)) return;
    if (this.#young.size >= this.#capacity) {
      this.#old = this.#young;
      this.#young = new Set();
    }
    this.#young.add(key);
  }
}
