/**
 * The memory store: the default frontier, for one process, gone when it ends. Waiting requests are packed as bytes
 * (packed_queue.ts) and the duplicate filter keeps 128-bit keys in a table (fingerprint_set.ts), so a million
 * waiting requests cost about a hundred megabytes, not six hundred.
 */
import type { Request } from "../spider/request.ts";
import { fingerprint } from "../spider/fingerprint.ts";
import type { Frontier, FrontierStats, FrontierStatus, Lease, LeaseOptions } from "./frontier.ts";
import { FingerprintSet } from "./fingerprint_set.ts";
import { PackedQueue } from "./packed_queue.ts";

/**
 * How many requests of a priority a lease looks at when it passes over busy hosts: enough to find other sites among
 * a page's worth of links to one, while a queue that is one site for a long way costs a bounded scan per lease.
 */
const LOOKAHEAD = 1000;

/** The default frontier: requests wait in this process's memory, and are gone when it ends. */
export class MemoryFrontier implements Frontier {
  readonly #queue = new PackedQueue();
  readonly #seen = new FingerprintSet();
  readonly #held = new Map<string, Request>();
  #nextId = 0;
  #queued = 0;
  #pushed = 0;
  #leased = 0;

  push(requests: readonly Request[]): Promise<number> {
    return Promise.resolve(this.#add(requests));
  }

  #add(requests: readonly Request[]): number {
    let added = 0;
    for (const request of requests) {
      if (!this.#seen.add(fingerprint(request)) && !request.dontFilter) continue;
      this.#queue.push(request);
      this.#queued++;
      added++;
    }
    this.#pushed += added;
    return added;
  }

  lease(max: number, options: LeaseOptions = {}): Promise<Lease[]> {
    const { skipHost } = options;
    const requests = skipHost ? this.#queue.take(max, skipHost, LOOKAHEAD) : this.#queue.take(max, undefined, max);
    const leases = requests.map((request) => {
      const id = String(this.#nextId++);
      this.#held.set(id, request);
      return { id, request };
    });
    this.#leased += leases.length;
    return Promise.resolve(leases);
  }

  finish(lease: Lease, yielded: readonly Request[]): Promise<void> {
    this.#add(yielded);
    this.#held.delete(lease.id);
    return Promise.resolve();
  }

  giveBack(leases: readonly Lease[]): Promise<void> {
    for (const lease of [...leases].reverse()) {
      if (this.#held.delete(lease.id)) this.#queue.unshift(lease.request);
    }
    return Promise.resolve();
  }

  ended(): Promise<boolean> {
    return Promise.resolve(this.#queue.size === 0 && this.#held.size === 0);
  }

  status(): Promise<FrontierStatus> {
    return Promise.resolve({
      waiting: this.#queue.size,
      held: this.#held.size,
      processes: 1,
      seen: this.#seen.size,
      queued: this.#queued,
    });
  }

  stats(): FrontierStats {
    return { pushed: this.#pushed, leased: this.#leased };
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
