/**
 * The requests a crawl process has leased and not started yet, by host, and the pass that starts those whose host has
 * a slot free. Apart from the crawl's loop (crawl.ts) because it is the part a broad crawl runs hottest: thousands of
 * hosts, most of them with every slot busy at any moment.
 */
import { hrefParts } from "../spider/href_parts.ts";
import type { Lease } from "../queue/frontier.ts";
import type { Request } from "../spider/request.ts";
import type { CrawlContext } from "./context.ts";
import type { Pending } from "./page_flow.ts";

export class WaitingRoom {
  readonly #ctx: CrawlContext;
  /** Leased requests not started yet, by host, oldest first. */
  readonly #byHost = new Map<string, Pending[]>();
  #count = 0;

  constructor(ctx: CrawlContext) {
    this.#ctx = ctx;
  }

  /** How many requests wait. */
  get count(): number {
    return this.#count;
  }

  /** How many hosts have requests waiting. */
  get hosts(): number {
    return this.#byHost.size;
  }

  /** How many requests for `host` wait. */
  forHost(host: string): number {
    return this.#byHost.get(host)?.length ?? 0;
  }

  add(pending: Pending): void {
    const host = pending.request.host;
    const list = this.#byHost.get(host);
    if (list) list.push(pending);
    else this.#byHost.set(host, [pending]);
    this.#count++;
  }

  /** Every request waiting, each once. */
  *requests(): IterableIterator<Request> {
    for (const list of this.#byHost.values()) for (const pending of list) yield pending.request;
  }

  /** Takes every waiting request out, for the frontier to have back (a crawl stopping). */
  drain(): Lease[] {
    const leases: Lease[] = [];
    for (const list of this.#byHost.values()) for (const pending of list) leases.push(pending.lease);
    this.#byHost.clear();
    this.#count = 0;
    return leases;
  }

  /**
   * Starts (through `start`) every waiting request whose host slot is free, while `room()` says another may start;
   * returns the epoch ms when the next one may.
   */
  startReady(room: () => boolean, start: (pending: Pending) => void): number {
    const slots = this.#ctx.slots;
    const now = Date.now();
    let next = now + 1000;
    for (const [host, list] of this.#byHost) {
      while (list.length > 0 && room()) {
        // A host with every slot busy first: it is most of them in a broad crawl, and its robots.txt, looked up for
        // each of them at each pass, was a twentieth of such a crawl's CPU (a new origin string hashed each time).
        const slotReadyAt = slots.readyAt(host);
        if (slotReadyAt === Infinity || this.#awaitingRobots(list[0])) break;
        const readyAt = Math.max(slotReadyAt, list[0].notBefore);
        if (readyAt > now) {
          if (readyAt < next) next = readyAt;
          break;
        }
        const pending = list.shift()!;
        this.#count--;
        slots.start(host, now);
        start(pending);
      }
      if (list.length === 0) this.#byHost.delete(host);
      if (!room()) break;
    }
    return next;
  }

  /**
   * Whether a request must wait for its site's robots.txt: until it is known, one request at a time goes to a host.
   * The first one fetches it (in admission), and its Crawl-delay is in the slot before a second request starts;
   * otherwise `per_domain` requests would all start at once, before anyone knew the site asked for a delay.
   */
  #awaitingRobots(pending: Pending): boolean {
    const robots = this.#ctx.robots;
    if (!robots || pending.admitted || pending.request.meta.dont_obey_robotstxt === true) return false;
    // The slot count first: it is a map lookup, and the robots state parses the URL.
    const url = pending.request.url;
    return this.#ctx.slots.active(pending.request.host) > 0 && robots.state(url, hrefParts(url)) === undefined;
  }
}
