/**
 * Keys of requests queued lately (admission.ts, queueKey), kept to drop a link seen again (most of what a page yields:
 * menus, "related" boxes) at the cost of a hash lookup, in the crawl and in its callback workers. Two generations of
 * KEYS_PER_GENERATION (about 3 MB at most): a key forgotten only sends a link the whole way again, to the frontier's
 * filter, which drops it.
 */
import { TwoGenerations } from "../queue/two_generations.ts";

/** Keys a generation holds by default. */
export const KEYS_PER_GENERATION = 16_384;

export class RecentKeys extends TwoGenerations<string> {
  constructor(perGeneration = KEYS_PER_GENERATION) {
    super(() => new Set<string>(), perGeneration);
  }
}
