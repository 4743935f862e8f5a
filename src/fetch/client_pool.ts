/**
 * The HTTP clients of a downloader, one per proxy ("" for direct), kept to a bound. Every distinct proxy URL has a
 * client of its own (a connection pool), and a request's meta `proxy` can name any proxy at all: a queue with
 * thousands of them would otherwise keep a pool open for each, for ever. Past the bound, the client used least
 * recently that no request is using is closed; one in use is never closed under a request.
 */
import { runtime } from "../runtime/mod.ts";
import type { ConnectionCounts, HttpClient, HttpClientOptions } from "../runtime/types.ts";
import type { HostResolver } from "../runtime/dns/resolver.ts";

/** Clients kept open at most, unless more are in use at once. */
export const MAX_CLIENTS = 64;

interface Entry {
  client: HttpClient;
  /** Requests using it now. */
  users: number;
}

export class ClientPool {
  /** In order of last use, least recent first (a Map keeps insertion order; a use moves the key to the end). */
  readonly #entries = new Map<string, Entry>();
  readonly #max: number;
  /** Idle connections each client keeps in all (src/fetch/idle_connections.ts); the runtime's default when absent. */
  readonly #maxIdle: number | undefined;
  /** The crawl's DNS cache, shared by all its clients (direct, and through each proxy that takes addresses). */
  readonly #resolver: HostResolver | undefined;

  constructor(max = MAX_CLIENTS, resolver?: HostResolver, maxIdle?: number) {
    this.#max = max;
    this.#resolver = resolver;
    this.#maxIdle = maxIdle;
  }

  /** How many clients are open. */
  get size(): number {
    return this.#entries.size;
  }

  /** The client for `proxy` (undefined: direct), held until `release` is called. */
  acquire(proxy: string | undefined): { client: HttpClient; release: () => void } {
    const key = proxy ?? "";
    let entry = this.#entries.get(key);
    if (entry) this.#entries.delete(key);
    else {
      const options: HttpClientOptions = proxy ? { proxy } : {};
      if (this.#resolver) options.resolver = this.#resolver;
      if (this.#maxIdle !== undefined) options.maxIdle = this.#maxIdle;
      entry = { client: runtime.httpClient(options), users: 0 };
    }
    this.#entries.set(key, entry);
    entry.users++;
    this.#evict();
    const held = entry;
    let released = false;
    return {
      client: held.client,
      release: () => {
        if (released) return;
        released = true;
        held.users--;
        this.#evict();
      },
    };
  }

  /** Closes idle clients, least recently used first, until the pool is within its bound (or all left are in use). */
  #evict(): void {
    if (this.#entries.size <= this.#max) return;
    for (const [key, entry] of this.#entries) {
      if (this.#entries.size <= this.#max) break;
      if (entry.users > 0) continue;
      this.#entries.delete(key);
      entry.client.close();
    }
  }

  /** What the open clients hold, added up (those that cannot tell count nothing). */
  connections(): ConnectionCounts {
    const total = { idle: 0, busy: 0, origins: 0 };
    for (const { client } of this.#entries.values()) {
      const counts = client.connections?.();
      if (!counts) continue;
      total.idle += counts.idle;
      total.busy += counts.busy;
      total.origins += counts.origins;
    }
    return total;
  }

  /** Closes every client. */
  close(): void {
    for (const entry of this.#entries.values()) entry.client.close();
    this.#entries.clear();
  }
}
