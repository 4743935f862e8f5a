/** The memory store: the default frontier, for one process, gone when it ends. */
import type { Request } from "../spider/request.ts";
import { fingerprint } from "../spider/fingerprint.ts";
import type { Frontier, FrontierStats, FrontierStatus, Lease, LeaseOptions } from "./frontier.ts";
import { PriorityQueue } from "./priority_queue.ts";

/**
 * How many requests of a priority a lease looks at when it passes over busy hosts: enough to find other sites among
 * a page's worth of links to one, while a queue that is one site for a long way costs a bounded scan per lease.
 */
const LOOKAHEAD = 1000;

/** The default frontier: requests wait in this process's memory, and are gone when it ends. */
export class MemoryFrontier implements Frontier {
  readonly #queue = new PriorityQueue<Request>();
  readonly #seen = new Set<string>();
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
      const key = fingerprint(request);
      if (this.#seen.has(key) && !request.dontFilter) continue;
      this.#seen.add(key);
      this.#queue.push(request, request.priority);
      this.#queued++;
      added++;
    }
    this.#pushed += added;
    return added;
  }

  lease(max: number, options: LeaseOptions = {}): Promise<Lease[]> {
    const { skipHost } = options;
    const requests = skipHost
      ? this.#queue.take(max, (request) => skipHost(request.host), LOOKAHEAD)
      : this.#queue.take(max, () => false, max);
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
      if (this.#held.delete(lease.id)) this.#queue.unshift(lease.request, lease.request.priority);
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
