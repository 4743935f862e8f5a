/**
 * How many idle keep-alive connections a crawl's HTTP client keeps in all.
 *
 * A broad crawl visits its hosts in turn: between two requests to a host, every other host in the crawl gets one.
 * A connection that comes back idle is needed again once the host's turn comes round, so the pool has to hold one or
 * two for each host the crawl is working on; below that, the least recently used connection it closes is exactly the
 * next one wanted, and nearly every request dials anew (at 2,000 hosts, concurrency 1000 and a bound of 512: 22,000
 * dials for 49,500 requests; with this bound, about two a host). Idle connections cost a file descriptor and a few
 * kilobytes of kernel memory each (their read buffer is given up while idle: src/runtime/h1/wire.ts), so the bound
 * is `IDLE_PER_SLOT` for each request the crawl may have in flight, within the open files the process may have.
 */

/** The bound when the crawl's concurrency is small: what the client kept before it depended on concurrency. */
export const MIN_IDLE = 512;
/** Idle connections kept for each request the crawl may have in flight (a host's next requests, hosts between turns). */
const IDLE_PER_SLOT = 4;
/** Open files left for everything that is not a connection: feeds, logs, caches, the job server, the browser. */
const OTHER_FILES = 256;

/** The bound on idle connections for `concurrency` requests in flight, with `openFiles` files allowed (undefined: unknown). */
export function idleConnectionBound(concurrency: number, openFiles: number | undefined): number {
  const wanted = Math.max(MIN_IDLE, IDLE_PER_SLOT * concurrency);
  if (openFiles === undefined) return wanted;
  // The connections in use (up to concurrency) need their descriptors first; idle ones have what is left.
  const room = openFiles - concurrency - OTHER_FILES;
  return Math.max(Math.min(wanted, room), 64);
}
