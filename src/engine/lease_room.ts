/**
 * How many more requests a crawl process may lease from its frontier. Requests taken and waiting here are held from
 * every other process of a shared crawl, so a process that hoards them leaves others idle; and one that takes too
 * few leaves its own slots empty.
 *
 * A request waiting for a host whose slots are all busy (or whose robots.txt is still on its way) cannot start
 * however free the crawl is. Counting it against `concurrency` as if it were about to start, as the room was once
 * worked out, cost a broad crawl half its slots: with `per_domain` requests in flight to each host and as many
 * waiting behind them, only half of `concurrency` could ever be in flight (scripts/bench/broad.ts measured 238
 * requests in flight on average at concurrency 1000, over 500 sites). So blocked requests make room for requests
 * that can start, while the waiting ones together stay at most `concurrency`: a process holds at most twice
 * `concurrency` requests, as it already could while pages finish.
 */

/** What the room is worked out from. */
export interface LeaseRoomInputs {
  /** The crawl's `concurrency`. */
  concurrency: number;
  /** Requests being fetched and processed. */
  inFlight: number;
  /** Requests taken from the frontier and waiting here to start. */
  waiting: number;
  /** How many of the waiting ones are for hosts that can start none now. */
  blocked: number;
  /** Pages whose finish is on its way to the frontier. */
  finishing: number;
}

/** The number of requests a lease may ask for now; zero or less means none. */
export function leaseRoom({ concurrency, inFlight, waiting, blocked, finishing }: LeaseRoomInputs): number {
  // Pages whose finish is on its way do not count up to `concurrency` of them: the page is done here, and only the
  // queue's answer is awaited.
  const finishingOverflow = Math.max(0, finishing - concurrency);
  const startable = waiting - Math.min(blocked, waiting);
  return Math.min(concurrency - inFlight - startable - finishingOverflow, concurrency - waiting);
}
