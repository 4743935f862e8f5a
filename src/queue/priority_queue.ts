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
  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head++] = undefined;
    // Compact once the consumed head is most of the array, so memory follows the live size.
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
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
