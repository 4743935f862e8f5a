/**
 * The frontier: where requests wait. The engine only talks to this interface, so the memory store, a checkpoint
 * and the shared Redis queue plug into the same crawl loop.
 *
 * The contract every store keeps: a leased request is held until `finish` or `giveBack`; `finish` puts the
 * requests a page yielded into the queue and releases the page in one step, so "nothing waiting and nothing held"
 * really means the crawl is over.
 */
import type { Request } from "../spider/request.ts";

/** A request taken from the frontier, held until finished or given back. */
export interface Lease {
  /** Store-specific handle for the held request. */
  readonly id: string;
  /** The request held. */
  readonly request: Request;
}

/** How a lease may choose among the requests waiting. */
export interface LeaseOptions {
  /** Hosts whose requests the crawl cannot start soon: they may be left for a later lease. */
  skipHost?: (host: string) => boolean;
  /**
   * robots.txt's Crawl-delay for a host in seconds, as this process has found it (0: none, or not fetched yet). A
   * store that keeps politeness for the whole crawl (politeness_scope=crawl) shares it with the other processes.
   */
  crawlDelay?: (host: string) => number;
}

/** What a store knows about the crawl, as `netweir queue status` shows it. */
export interface FrontierStatus {
  /** Requests in the queue. */
  waiting: number;
  /** Requests taken and not finished. */
  held: number;
  /** Processes taking part (1 for a store of one process's own). */
  processes: number;
  /** Size of the duplicate filter. */
  seen: number;
  /** Requests ever put in the queue. */
  queued: number;
  /**
   * A shared queue's crawl-wide stats, when asked for (`netweir queue status`): the totals of the live processes and
   * one entry per process, as of each one's last heartbeat.
   */
  crawl?: CrawlTotals;
  /** The processes heard from within their lease, oldest heartbeat first (with `crawl`). */
  live?: LiveProcess[];
}

/** A process's running totals, as its heartbeat reports them. */
export interface ProcessTotals {
  /** Pages fetched (responses handed to callbacks, errors included). */
  pages: number;
  /** Items kept. */
  items: number;
  /** Errors counted (failed downloads, callbacks that threw, ...). */
  errors: number;
}

/** The crawl-wide totals: the sum over live processes. */
export interface CrawlTotals extends ProcessTotals {
  /** Pages a second over the last minute, summed over the live processes. */
  pagesPerSecond: number;
}

/** One live process of a shared crawl, as `netweir queue status` lists it. */
export interface LiveProcess {
  /** Its id in the queue (host:random). */
  id: string;
  /** The machine it runs on. */
  host: string;
  /** Its operating-system process id; null for a process of a version that does not report one. */
  pid: number | null;
  /** When it was last heard from (Redis's clock). */
  lastHeartbeat: Date;
  /** Seconds since then, by Redis's clock. */
  heartbeatAgeSeconds: number;
  /** Its totals as of its last heartbeat; null for a process of a version that does not report them. */
  totals: (ProcessTotals & { pagesPerSecond: number }) | null;
}

/**
 * Counters a store adds to the crawl's stats. A counter named `dropped.REASON` counts requests the store dropped
 * before the crawl saw them, and is shown with the crawl's own under `dropped`.
 */
export type FrontierStats = Record<string, number>;

/** Where a crawl's requests wait: the store behind the crawl loop (memory, a checkpoint, or a shared Redis queue). */
export interface Frontier {
  /**
   * Adds requests (the start requests, or requests pushed from outside). Duplicates are left out unless
   * `dontFilter`. Returns how many went in.
   */
  push(requests: readonly Request[]): Promise<number>;
  /**
   * Takes up to `max` requests, highest priority first, FIFO within a priority. May return fewer, or none. With
   * `skipHost`, a store may pass over requests to hosts the crawl has enough of for now, leaving them in their place,
   * to reach requests for other hosts behind them (the memory store does, within the next 1,000 of a priority; the
   * shared queue takes them in order).
   */
  lease(max: number, options?: LeaseOptions): Promise<Lease[]>;
  /** Adds the requests a page yielded (deduplicated) and releases the page, in one step. */
  finish(lease: Lease, yielded: readonly Request[]): Promise<void>;
  /** Puts a held request back in the queue unchanged (bypassing the duplicate filter): a stop before it was done. */
  giveBack(leases: readonly Lease[]): Promise<void>;
  /**
   * Whether the crawl is over for this process: nothing waiting and nothing held anywhere (for a shared store,
   * for as long as its idle setting asks). The engine asks when it has nothing in flight and `lease` gave nothing.
   */
  ended(): Promise<boolean>;
  /** Where the crawl stands: waiting, held, processes, seen and queued. */
  status(): Promise<FrontierStatus>;
  /** The store's own stats counters (pushed, leased, ...). */
  stats(): FrontierStats;
  /**
   * For a shared store: `read` gives this process's running totals, which its heartbeat reports to the crawl (see
   * {@link FrontierStatus.crawl}). Called once, when the crawl is built.
   */
  shareTotals?(read: () => ProcessTotals): void;
  /** For a store that outlives the process (a checkpoint): the crawl's stats as the last run left them. */
  savedStats?(): Record<string, unknown> | undefined;
  /** For a store that outlives the process: keeps the crawl's stats for the next run. */
  saveStats?(record: Record<string, unknown>): void;
  /** Releases what the store holds (connections, files); called once at the end of the crawl. */
  close(): Promise<void>;
  /**
   * For stores that can fail on their own (a shared queue that is lost): calls `handler` once, with the error, when
   * the store can no longer be used, so a crawl stops even while it waits for something else.
   */
  onFailure?(handler: (error: Error) => void): void;
  /**
   * For stores whose answers can be undone (a shared queue: Redis restarted from older data, or this process taken
   * for dead): calls `handler` each time requests the crawl handed over may not be queued after all, so that the
   * crawl forgets which links it dropped as queued lately. The store gives back the pages held at that moment
   * rather than finish them, so a link dropped before then is found again.
   */
  onForget?(handler: () => void): void;
}
