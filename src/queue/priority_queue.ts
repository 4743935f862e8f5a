/** Requests by priority: higher first, first in first out within a priority. */

class Fifo<T> {
  #items: (T | undefined)[] = [];
  #head = 0;
  get size(): number {
    return this.#items.length - this.#head;
  }
  push(item: T): void {
    this.#items.push(item);
  }
  /**
   * Takes up to `max` items, in order, from among the first `window`, leaving those `skip` says to leave where they
   * were, in their order. O(window): what was scanned and left is written back over the slots just before the scan's
   * end, so the rest of the queue is not touched.
   */
  takeFromFront(max: number, skip: (item: T) => boolean, window: number): T[] {
    const taken: T[] = [];
    const left: T[] = [];
    const end = Math.min(this.#items.length, this.#head + window);
    let i = this.#head;
    for (; i < end && taken.length < max; i++) {
      const item = this.#items[i] as T;
      if (skip(item)) left.push(item);
      else taken.push(item);
    }
    // Positions head .. i-1 held taken and left items; the left ones go back at the end of that span, in order.
    let at = i - left.length;
    for (let j = this.#head; j < at; j++) this.#items[j] = undefined;
    for (const item of left) this.#items[at++] = item;
    this.#head = i - left.length;
    this.#compact();
    return taken;
  }

  /** Drops the consumed head once it is most of the array, so memory follows the live size. */
  #compact(): void {
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
  }

  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head++] = undefined;
    this.#compact();
    return item;
  }
}

export class PriorityQueue<T> {
  readonly #levels = new Map<number, Fifo<T>>();
  /** Priorities that have a queue, highest first. */
  #order: number[] = [];
  #size = 0;

  get size(): number {
    return this.#size;
  }

  push(item: T, priority: number): void {
    let level = this.#levels.get(priority);
    if (!level) {
      level = new Fifo<T>();
      this.#levels.set(priority, level);
      this.#order.push(priority);
      this.#order.sort((a, b) => b - a);
    }
    level.push(item);
    this.#size++;
  }

  /** Puts an item back at the front of its priority (a request given back goes first). */
  unshift(item: T, priority: number): void {
    // Rare (only on stop), so a rebuild of one level is fine.
    const level = this.#levels.get(priority);
    const rebuilt = new Fifo<T>();
    rebuilt.push(item);
    if (level) { for (let next = level.shift(); next !== undefined; next = level.shift()) rebuilt.push(next); }
    else {
      this.#order.push(priority);
      this.#order.sort((a, b) => b - a);
    }
    this.#levels.set(priority, rebuilt);
    this.#size++;
  }

  /**
   * Takes up to `max` items, highest priority first and in order within one, passing over those `skip` says to
   * leave (they keep their place). At most `window` items of each priority are looked at, so a long run of skipped
   * items costs a bounded scan, not the whole queue.
   */
  take(max: number, skip: (item: T) => boolean, window: number): T[] {
    const taken: T[] = [];
    for (let index = 0; index < this.#order.length && taken.length < max; index++) {
      const level = this.#levels.get(this.#order[index])!;
      for (const item of level.takeFromFront(max - taken.length, skip, window)) taken.push(item);
    }
    this.#size -= taken.length;
    // Levels emptied along the way are dropped, as shift() drops them.
    this.#order = this.#order.filter((priority) => {
      if (this.#levels.get(priority)!.size > 0) return true;
      this.#levels.delete(priority);
      return false;
    });
    return taken;
  }

  shift(): T | undefined {
    while (this.#order.length > 0) {
      const priority = this.#order[0];
      const level = this.#levels.get(priority)!;
      const item = level.shift();
      if (item !== undefined) {
        this.#size--;
        return item;
      }
      this.#levels.delete(priority);
      this.#order.shift();
    }
    return undefined;
  }
}
