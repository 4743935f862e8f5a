/**
 * What a crawl keeps per host, counted now: the sizes of its per-host tables and the connections its HTTP clients
 * hold. A broad crawl must keep these to the hosts it is working on (plus the documented caches), not to every host
 * it has seen; tests/engine/host_state_test.ts and scripts/bench/broad.ts read them to show it.
 */
import type { CrawlContext } from "./context.ts";

/** The sizes of what a crawl keeps per host, at one moment (what `Crawl.hostState()` gives). */
export interface HostState {
  /** Hosts with a slot: requests in flight, or a wait not over (src/engine/slots.ts). */
  slots: number;
  /** Autothrottle delays kept for hosts whose slot went (at most REMEMBERED_DELAYS). */
  learnedDelays: number;
  /** robots.txt Crawl-delays kept, one per host that has one. */
  crawlDelays: number;
  /** Origins whose robots.txt outcome is kept (src/fetch/robots.ts). */
  robotsKnown: number;
  /** How many of those are kept parsed (at most PARSED_KEPT). */
  robotsParsed: number;
  /** Hosts with requests leased by this process and not started yet. */
  waitingHosts: number;
  /** HTTP connections kept idle for reuse. */
  idleConnections: number;
  /** HTTP connections carrying a request now (or opened for one about to start). */
  busyConnections: number;
  /** The HTTP clients' entries per origin (idle lists, HTTP/2 sessions, origins known to be HTTP/1.1 only). */
  connectionOrigins: number;
}

/** The crawl's per-host state now; `waitingHosts` is the crawl's own count (its waiting requests are its own). */
export function hostState(ctx: CrawlContext, waitingHosts: number): HostState {
  const slots = ctx.slots.sizes;
  const robots = ctx.robots?.size ?? { known: 0, parsed: 0 };
  const connections = ctx.downloader.connections();
  return {
    ...slots,
    robotsKnown: robots.known,
    robotsParsed: robots.parsed,
    waitingHosts,
    idleConnections: connections.idle,
    busyConnections: connections.busy,
    connectionOrigins: connections.origins,
  };
}
