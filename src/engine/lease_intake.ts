/**
 * How a crawl process takes requests from its frontier: when to ask (a lease is a round trip with a shared queue),
 * how many (as many as it can start, no more), which hosts to pass over, and what it does with each request taken
 * (checked against this process's settings, then into the waiting room). The crawl's loop (crawl.ts) calls
 * `maybeLease` at each turn and tells it when something changed that may have put requests in the queue.
 */
import type { Frontier, Lease } from "../queue/frontier.ts";
import { retryNotBefore } from "../fetch/retry.ts";
import type { Request } from "../spider/request.ts";
import { checkSteps } from "../spider/step_checks.ts";
import type { CrawlContext } from "./context.ts";
import type { WaitingRoom } from "./waiting_room.ts";

/** What the intake needs of the crawl it feeds. */
export interface IntakeHost {
  readonly ctx: CrawlContext;
  readonly waiting: WaitingRoom;
  /** Requests running now. */
  inFlight(): Iterable<Request>;
  inFlightCount(): number;
  /** Pages done whose finish the frontier has not confirmed yet. */
  finishingCount(): number;
  finishLater(lease: Lease, yielded: readonly Request[]): void;
  fail(error: unknown): void;
  /** Runs the crawl's loop again (at the end of the event loop's turn). */
  wake(): void;
  stopping(): boolean;
}

/**
 * How often an idle process asks the frontier whether the crawl is over, and how long after a short lease the intake
 * asks again anyway (other processes may have queued some meanwhile).
 */
export const IDLE_POLL_MS = 250;

export class LeaseIntake {
  readonly #host: IntakeHost;
  readonly #frontier: Frontier;
  #leasing = false;
  /** When the last lease was asked for (epoch ms), and whether it brought fewer than asked (see #worthAsking). */
  #leasedAt = 0;
  #lastLeaseShort = false;
  /** Whether a page finished since the last lease yielded requests (they may be in the queue now). */
  #queuedSinceLease = false;
  /**
   * Set when a lease brought fewer requests than asked for: the queue has no more for now. The loop leases again
   * only once something may have changed (a page finished, start requests went in, the idle poll), rather than ask
   * an empty queue again and again: each ask is a round trip with a shared queue.
   */
  #drained = false;

  constructor(host: IntakeHost) {
    this.#host = host;
    this.#frontier = host.ctx.frontier;
  }

  /** Whether no lease is on its way and the last one found the queue empty for this process. */
  get idle(): boolean {
    return !this.#leasing && this.#drained;
  }

  /** Something may have put requests in the queue (a page finished, start requests went in, time passed). */
  changed(): void {
    this.#drained = false;
  }

  /** A page finished here with requests yielded: they may be in the queue now. */
  queued(): void {
    this.#queuedSinceLease = true;
  }

  /** Leases more, unless a lease is on its way, the queue was found empty, or it is not worth asking yet. */
  maybeLease(): void {
    if (!this.#leasing && !this.#drained && this.#worthAsking()) this.#lease();
  }

  /**
   * How many more requests this process may take: as many as it can start, no more. Requests taken and waiting
   * here are held from every other process of a shared crawl, so a process that hoards them leaves others idle.
   * Pages whose finish is on its way do not count up to `concurrency` of them (the page is done here; only the
   * queue's answer is awaited), so a process holds at most twice `concurrency` requests.
   */
  #freeCapacity(): number {
    const host = this.#host;
    const concurrency = host.ctx.settings.concurrency;
    const finishingOverflow = Math.max(0, host.finishingCount() - concurrency);
    return concurrency - host.inFlightCount() - host.waiting.count - finishingOverflow;
  }

  /**
   * A lease's `skipHost`: whether a host already has as many requests waiting here (or taken by this lease) as it may
   * have in flight: more of them could not start soon, and would take room from other sites' requests (a multi-site
   * crawl would otherwise run at the pace of whichever site's links came first in the queue).
   */
  #hostHasEnough(): (host: string) => boolean {
    // The requests this lease takes count too: the store asks as it goes, before any of them is waiting here, and a
    // lease with room for several would otherwise fill it from the first host in the queue.
    const taking = new Map<string, number>();
    const { waiting, ctx } = this.#host;
    return (host) => {
      const taken = taking.get(host) ?? 0;
      if (waiting.forHost(host) + taken >= ctx.slots.perDomain(host)) return true;
      taking.set(host, taken + 1);
      return false;
    };
  }

  /**
   * Whether to lease now: at any free slot, unless the last lease came back short (the queue had no more for this
   * process, or only sites it has enough of waiting here). Then another lease at each page that finishes, as with the
   * autothrottle on (pages finish one at a time, spaced by their site's delay), cost a shared queue a call a page
   * that mostly took nothing. So the next one waits until pages this process finished since have queued links and
   * half its slots are free, or IDLE_POLL_MS has passed (other processes may have queued some meanwhile); with
   * nothing in flight or waiting here it goes at once, since what it brings can start at once (a chain's next link).
   */
  #worthAsking(): boolean {
    const free = this.#freeCapacity();
    if (free <= 0) return false;
    const host = this.#host;
    if (!this.#lastLeaseShort || (host.waiting.count === 0 && host.inFlightCount() === 0)) return true;
    if (Date.now() - this.#leasedAt >= IDLE_POLL_MS) return true;
    return this.#queuedSinceLease && free >= Math.ceil(host.ctx.settings.concurrency / 2);
  }

  #lease(): void {
    this.#leasing = true;
    this.#leasedAt = Date.now();
    this.#queuedSinceLease = false;
    const want = this.#freeCapacity();
    const slots = this.#host.ctx.slots;
    const crawlDelay = (host: string) => slots.crawlDelay(host);
    this.#frontier.lease(want, { skipHost: this.#hostHasEnough(), crawlDelay }).then(async (taken) => {
      const leases = await this.#withinTabs(taken);
      this.#drained = leases.length < want;
      this.#lastLeaseShort = leases.length < want;
      for (const lease of leases) await this.#accept(lease);
    }).catch((error) => this.#host.fail(error)).finally(() => {
      this.#leasing = false;
      this.#host.wake();
    });
  }

  /**
   * In a shared crawl, the leased requests this process can start soon: the rendered ones beyond its free tabs
   * (`browser_tabs` less the rendered requests it holds) go back to the queue at once, for a process with tabs free,
   * where they would have waited here for a tab while other processes idled. Plain requests are all kept, up to
   * `concurrency` as before. Costs a second call to the queue only when a lease brought more rendered requests than
   * there are free tabs.
   */
  async #withinTabs(leases: Lease[]): Promise<Lease[]> {
    const { ctx, waiting } = this.#host;
    const fetchers = ctx.fetchers;
    // A crawl of plain requests pays one check a leased request, and nothing a request it holds.
    if (ctx.settings.queue === null || !leases.some((lease) => fetchers.renders(lease.request))) return leases;
    let free = ctx.settings.browserTabs;
    for (const request of this.#host.inFlight()) if (fetchers.renders(request)) free--;
    for (const request of waiting.requests()) if (fetchers.renders(request)) free--;
    const kept: Lease[] = [];
    const back: Lease[] = [];
    for (const lease of leases) {
      if (!fetchers.renders(lease.request)) kept.push(lease);
      else if (free-- > 0) kept.push(lease);
      else back.push(lease);
    }
    if (back.length > 0) await this.#frontier.giveBack(back);
    return kept;
  }

  /** Checks a leased request against this process's settings; a refused one is finished (gone for the crawl). */
  async #accept(lease: Lease): Promise<void> {
    const host = this.#host;
    if (host.stopping()) {
      await this.#frontier.giveBack([lease]);
      return;
    }
    const { admission, stats, log, spider, settings } = host.ctx;
    const refusal = admission.checkLeased(lease.request);
    if (refusal) {
      stats.dropped(refusal.reason);
      log.debug(`dropped ${lease.request.url} (${refusal.reason}: ${refusal.detail})`);
      host.finishLater(lease, []);
      return;
    }
    if (lease.request.steps !== undefined && lease.request.steps.length > 0) {
      const stepRefusal = await checkSteps(spider, lease.request.steps, settings.browserUploadDir);
      if (stepRefusal) {
        stats.dropped(stepRefusal.reason);
        log.warning(`dropped ${lease.request.url}: ${stepRefusal.detail}`);
        host.finishLater(lease, []);
        return;
      }
    }
    host.waiting.add({ lease, request: lease.request, notBefore: retryNotBefore(lease.request), admitted: false });
  }
}
