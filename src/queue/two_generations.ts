/**
 * Keys seen lately, in bounded memory: two generations of at most `perGeneration` keys each. When the young one fills,
 * the old one is dropped and the young one becomes old, so lookups and inserts stay O(1), memory stays flat, and what
 * was used recently is kept. For caches whose every key stands for something kept elsewhere in full (the duplicate
 * filter): forgetting one costs a longer way round, never a wrong answer.
 */

/** A generation: any set of keys. */
export interface KeySet<K> {
  has(key: K): boolean;
  add(key: K): void;
  readonly size: number;
}

export class TwoGenerations<K> {
  readonly #newGeneration: () => KeySet<K>;
  readonly #perGeneration: number;
  #young: KeySet<K>;
  #old: KeySet<K>;

  constructor(newGeneration: () => KeySet<K>, perGeneration: number) {
    this.#newGeneration = newGeneration;
    this.#perGeneration = Math.max(1, perGeneration);
    this.#young = newGeneration();
    this.#old = newGeneration();
  }

  has(key: K): boolean {
    return this.#young.has(key) || this.#old.has(key);
  }

  add(key: K): void {
    if (this.#young.has(key)) return;
    if (this.#young.size >= this.#perGeneration) {
      this.#old = this.#young;
      this.#young = this.#newGeneration();
    }
    this.#young.add(key);
  }

  /** How many are kept now. */
  get size(): number {
    return this.#young.size + this.#old.size;
  }
}
