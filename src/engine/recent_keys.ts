/**
 * Requests queued lately, by key, kept to drop a link seen again (most of what a page yields: menus, "related" boxes)
 * at the cost of a hash lookup: in the crawl (admission.ts) and, from what the crawl tells them, in its callback
 * workers (callback_worker.ts). Two generations of KEYS_PER_GENERATION keys (about 3 MB at most): a key forgotten only
 * sends a link the whole way again, to the frontier's filter, which drops it.
 */
import type { Request } from "../spider/request.ts";
import { TwoGenerations } from "../queue/two_generations.ts";

/** Keys a generation holds by default. */
export const KEYS_PER_GENERATION = 16_384;

/**
 * The key a request is known by among those queued lately: its URL without the fragment, for requests the frontier
 * filters by URL alone (GET, no body, not dontFilter); undefined for the others. Two requests with one key have
 * one fingerprint, so a request whose key was queued is one the frontier would drop.
 */
export function queueKey(request: Request): string | undefined {
  if (request.dontFilter || request.method !== "GET" || request.body) return undefined;
  const hash = request.url.indexOf("#");
  return hash < 0 ? request.url : request.url.slice(0, hash);
}

export class RecentKeys {
  readonly #keys = new TwoGenerations<string>(() => new Set<string>(), KEYS_PER_GENERATION);
  readonly #maxDepth: number | null;

  /** `maxDepth`: the crawl's max_depth, or null for none. */
  constructor(maxDepth: number | null) {
    this.#maxDepth = maxDepth;
  }

  /**
   * Whether a request of the same key was queued lately, so that the frontier would drop `request` at `depth` (the
   * depth the crawl gives it). Never past max_depth: such a request is refused and counted as such, as it was the
   * first time round.
   */
  has(request: Request, depth: number): boolean {
    if (this.#maxDepth !== null && depth > this.#maxDepth) return false;
    const key = queueKey(request);
    return key !== undefined && this.#keys.has(key);
  }

  /** Notes a queued request; gives its key, or undefined for one the frontier does not filter by URL alone. */
  note(request: Request): string | undefined {
    const key = queueKey(request);
    if (key !== undefined) this.#keys.add(key);
    return key;
  }

  /** Notes a key the crawl queued (what a callback worker is told). */
  noteKey(key: string): void {
    this.#keys.add(key);
  }
}
