/**
 * The memory store's duplicate filter: request fingerprints as 128-bit keys in one open-addressing table of
 * 32-bit words, not as strings in a Set. A 40-character hex string in a Set costs about 100 bytes of heap; here a
 * fingerprint takes 16 bytes in a table kept between a third and three quarters full, 21 to 43 bytes, and the
 * garbage collector has one array to look at instead of a million strings.
 *
 * 128 bits are what the checkpoint and the shared queue keep of a fingerprint too: two requests share one with a
 * chance of about 10^-21 in a billion requests.
 */

/** Slots of the first table (a power of two). */
const INITIAL_SLOTS = 1024;

/** The four 32-bit words of a fingerprint's first 32 hex digits. */
function words(hex: string, out: Uint32Array): void {
  for (let w = 0; w < 4; w++) {
    let value = 0;
    for (let i = w * 8; i < w * 8 + 8; i++) {
      const code = hex.charCodeAt(i);
      // 0-9 are 48-57, a-f 97-102 (fingerprints are lower case).
      value = (value << 4) | (code <= 57 ? code - 48 : code - 87);
    }
    out[w] = value >>> 0;
  }
}

export class FingerprintSet {
  /** Four words a slot; a slot of four zero words is empty (the all-zero key is kept apart, in #hasZero). */
  #table = new Uint32Array(INITIAL_SLOTS * 4);
  #mask = INITIAL_SLOTS - 1;
  #size = 0;
  #hasZero = false;
  readonly #key = new Uint32Array(4);

  get size(): number {
    return this.#size;
  }

  /** Adds a fingerprint (40 or at least 32 lower-case hex digits); true when it was not there before. */
  add(hex: string): boolean {
    const key = this.#key;
    words(hex, key);
    if ((key[0] | key[1] | key[2] | key[3]) === 0) {
      if (this.#hasZero) return false;
      this.#hasZero = true;
      this.#size++;
      return true;
    }
    const at = this.#find(key);
    if (at >= 0) return false;
    const table = this.#table;
    const slot = ~at * 4;
    table[slot] = key[0];
    table[slot + 1] = key[1];
    table[slot + 2] = key[2];
    table[slot + 3] = key[3];
    this.#size++;
    // Kept at most three quarters full, so a probe stays short.
    if (this.#size * 4 > (this.#mask + 1) * 3) this.#grow();
    return true;
  }

  has(hex: string): boolean {
    const key = this.#key;
    words(hex, key);
    if ((key[0] | key[1] | key[2] | key[3]) === 0) return this.#hasZero;
    return this.#find(key) >= 0;
  }

  /**
   * The slot holding `key`, or, when it is not there, `~slot` of the empty slot where it would go. The key's first
   * word is a hash already: fingerprints are SHA-1, evenly spread.
   */
  #find(key: Uint32Array): number {
    const table = this.#table;
    const mask = this.#mask;
    for (let slot = key[0] & mask;; slot = (slot + 1) & mask) {
      const i = slot * 4;
      const a = table[i];
      if (a === 0 && table[i + 1] === 0 && table[i + 2] === 0 && table[i + 3] === 0) return ~slot;
      if (a === key[0] && table[i + 1] === key[1] && table[i + 2] === key[2] && table[i + 3] === key[3]) return slot;
    }
  }

  #grow(): void {
    const old = this.#table;
    this.#table = new Uint32Array(old.length * 2);
    this.#mask = (this.#mask + 1) * 2 - 1;
    const key = this.#key;
    for (let i = 0; i < old.length; i += 4) {
      if ((old[i] | old[i + 1] | old[i + 2] | old[i + 3]) === 0) continue;
      key[0] = old[i];
      key[1] = old[i + 1];
      key[2] = old[i + 2];
      key[3] = old[i + 3];
      const slot = ~this.#find(key) * 4;
      this.#table.set(key, slot);
    }
  }
}
