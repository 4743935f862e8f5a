/**
 * The host resolver's memory (resolver.ts): one answer per name, kept until its expiry, the least recently used names
 * dropped past a bound, and one lookup in flight per name, shared by every connection that asks meanwhile. An answer
 * is addresses or a failure: a name that failed is asked again only after its (short) negative TTL, so a crawl with
 * thousands of links to a dead host does not send thousands of queries.
 */

/** What a lookup gave: addresses (best first) or the error to report, and for how many seconds it holds. */
export type Answer = { addresses: string[]; ttl: number } | { error: Error; ttl: number };

interface Kept {
  answer: Answer;
  /** Milliseconds on the cache's clock. */
  expires: number;
}

export interface AnswerCacheOptions {
  /** Names kept at most. */
  size: number;
  /** Milliseconds, any origin: performance.now by default (a test passes its own). */
  now?: () => number;
}

export class AnswerCache {
  /** In order of last use, least recent first (a hit moves the name to the end). */
  readonly #kept = new Map<string, Kept>();
  readonly #inFlight = new Map<string, Promise<Answer>>();
  readonly #size: number;
  readonly #now: () => number;

  constructor(options: AnswerCacheOptions) {
    this.#size = options.size;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Names kept now (expired ones included until they are next asked for). */
  get size(): number {
    return this.#kept.size;
  }

  /**
   * The answer for `name`: the kept one while it holds, else the lookup in flight for it, else a new `lookup`,
   * whose answer is kept for its TTL (none when the TTL is 0).
   */
  get(name: string, lookup: () => Promise<Answer>): Promise<Answer> {
    const kept = this.#kept.get(name);
    if (kept !== undefined) {
      this.#kept.delete(name);
      if (kept.expires > this.#now()) {
        this.#kept.set(name, kept);
        return Promise.resolve(kept.answer);
      }
    }
    const pending = this.#inFlight.get(name);
    if (pending !== undefined) return pending;
    const asked = lookup().then((answer) => {
      this.#keep(name, answer);
      return answer;
    }).finally(() => this.#inFlight.delete(name));
    this.#inFlight.set(name, asked);
    return asked;
  }

  #keep(name: string, answer: Answer): void {
    if (answer.ttl <= 0) return;
    this.#kept.set(name, { answer, expires: this.#now() + answer.ttl * 1000 });
    // The first key of a Map is the one set longest ago: the least recently used name.
    while (this.#kept.size > this.#size) this.#kept.delete(this.#kept.keys().next().value!);
  }
}
