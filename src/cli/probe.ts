/**
 * A probe: a crawl kept open for a command of the spider developer's loop (`fetch`, `parse`, `shell`, `check`). It
 * fetches the requests it is given as a crawl of the spider would (the spider's settings and profile, its request
 * and response middlewares, cookies, proxies, robots.txt, the HTTP cache, the browser for `render`/`steps`) and
 * hands each page, failure or refusal to the command instead of to the spider's callbacks. Nothing is written: no
 * feed, no archive, no deltafetch record, no checkpoint, no stats file; a shared queue is never touched.
 *
 * How: the probe crawls a subclass of the spider whose one callback and errback take every request. Each request
 * carries its number in `meta`, so the page can be given back to whoever asked for it, with the request as asked
 * (its own callback, meta and cbKwargs). The requests a visit wants followed are yielded by that callback, so the
 * crawl's own rules (allowedDomains, depth, duplicates) decide which are fetched; the ones they drop, and those
 * robots.txt or a middleware drop, are seen when the page is finished without them.
 */
import { checkBrowserAtStart } from "../browser/find_browser.ts";
import { Crawl } from "../engine/crawl.ts";
import { createLogger, type LogLevel } from "../log.ts";
import type { Lease } from "../queue/frontier.ts";
import { MemoryFrontier } from "../queue/memory.ts";
import { runtime } from "../runtime/mod.ts";
import { resolveCrawlSettings } from "../settings/check.ts";
import { Settings } from "../settings/settings.ts";
import type { SettingValues } from "../settings/table.ts";
import { Page } from "../spider/page.ts";
import type { Request } from "../spider/request.ts";
import { Spider, type SpiderClass } from "../spider/spider.ts";
import { spiderSettings } from "../spider/spider_settings.ts";
import { checkSpiderAtStart } from "../spider/start_checks.ts";
import type { Logger } from "../spider/types.ts";
import type { Failure } from "../spider/callbacks.ts";
import { CommandError } from "./errors.ts";

/** What became of one request. `request` is the request as it was asked for (at the depth it was fetched at). */
export type ProbeOutcome =
  | { kind: "page"; page: Page; request: Request }
  | { kind: "failed"; error: Error; request: Request }
  | { kind: "dropped"; reason: string; request: Request };

/** Looks at one outcome and says which requests to fetch next (after the crawl's rules for yielded requests). */
export type Visit = (outcome: ProbeOutcome) => Promise<readonly Request[] | void> | readonly Request[] | void;

/** What a probe is built from. */
export interface ProbeOptions {
  /** The spider whose settings and middlewares apply; a plain Spider when not given. */
  spider?: Spider;
  /** Settings over the spider's own (`-s`). */
  overrides?: Settings;
  /** Where log lines go (standard error by default); the level is the `log_level` setting, `error` unless set. */
  logSink?: (line: string) => void;
}

/** How requests are fetched. */
export interface ProbeFetchOptions {
  /** Every status reaches the visit as a page (as `netweir fetch` wants), not only those the spider handles. */
  allStatuses?: boolean;
}

const PROBE_ID = "netweir_probe";
const CALLBACK = "netweirProbePage";
const ERRBACK = "netweirProbeFailure";
/**
 * Settings a probe never runs with: each would write a file, share a queue or move callbacks elsewhere; and the
 * limits of a whole crawl, which would end a shell session after max_time or a parse after max_pages, when the probe
 * only fetches what it is asked for.
 */
const SILENCED: Partial<SettingValues> = {
  maxItems: null,
  maxPages: null,
  maxErrors: null,
  maxTime: null,
  maxMemory: null,
  queue: null,
  checkpoint: null,
  deltafetch: null,
  warc: null,
  har: null,
  statsFile: null,
  workers: 0,
  progress: false,
};

/** A plain spider for fetching without a spider file. */
class NetweirProbe extends Spider {
  override name = "netweir";
}

/** One call of run(): its visit, and how many of its requests are not done yet. */
class Batch {
  left = 0;
  error: unknown = undefined;
  readonly #all = Promise.withResolvers<void>();
  constructor(readonly visit: Visit, readonly options: ProbeFetchOptions) {}
  get finished(): Promise<void> {
    return this.#all.promise;
  }
  done(): void {
    if (--this.left === 0) this.#all.resolve();
  }
  /** Ends the batch at once (the crawl failed). */
  abort(): void {
    this.#all.resolve();
  }
}

/** One request on its way: what was asked, its batch, and the requests its visit asked to follow. */
interface Pending {
  asked: Request;
  batch: Batch;
  settled: boolean;
  /** Ids of the requests its visit asked to follow, to tell at its finish which the crawl dropped. */
  followed: number[];
}

/** A memory frontier that stays open (a probe's crawl waits for more) and reports each finish to the probe. */
class ProbeFrontier extends MemoryFrontier {
  closing = false;
  constructor(private readonly onFinish: (lease: Lease, yielded: readonly Request[]) => void) {
    super();
  }
  override finish(lease: Lease, yielded: readonly Request[]): Promise<void> {
    const finished = super.finish(lease, yielded);
    this.onFinish(lease, yielded);
    return finished;
  }
  override ended(): Promise<boolean> {
    return this.closing ? super.ended() : Promise.resolve(false);
  }
}

/** A crawl kept open to fetch requests one command at a time; see the module's comment. */
export class Probe {
  /** The spider crawled: a subclass of the one given, or of a plain Spider. */
  readonly spider: Spider;
  /** Whether a spider was given (else the probe crawls a plain one). */
  readonly spiderGiven: boolean;
  readonly settings: SettingValues;
  readonly log: Logger;
  readonly #crawl: Crawl;
  readonly #frontier: ProbeFrontier;
  readonly #pending = new Map<number, Pending>();
  /** Recent debug lines, for the reason a request was dropped (robots.txt, offsite...). */
  readonly #recentDebug: string[] = [];
  #nextId = 1;
  #running: Promise<unknown> | undefined;
  #fatal: unknown;

  private constructor(spider: Spider, given: boolean, settings: SettingValues, log: Logger) {
    this.spider = spider;
    this.spiderGiven = given;
    this.settings = settings;
    this.log = log;
    this.#frontier = new ProbeFrontier((lease, yielded) => this.#finished(lease, yielded));
    this.#crawl = new Crawl(spider, { settings, log, frontier: this.#frontier });
  }

  /**
   * A probe for `options.spider` (its settings resolved and checked as a crawl's are: a SettingsError for a bad
   * one). Its crawl starts with the first fetch.
   */
  static open(options: ProbeOptions = {}): Probe {
    const base = options.spider ?? new NetweirProbe();
    const spider = probeSpider(base);
    checkSpiderAtStart(spider);
    const overrides = new Settings({ logLevel: "error" }).merge(options.overrides);
    const resolved = resolveCrawlSettings({ spider: spiderSettings(base), profiles: base.profiles, overrides });
    const settings = { ...resolved, ...SILENCED } as SettingValues;
    checkBrowserAtStart(spider, settings);
    const sink = options.logSink ?? ((line: string) => runtime.writeStderr(line));
    const shown = createLogger(settings.logLevel as LogLevel, sink);
    const probe: Probe = new Probe(spider, options.spider !== undefined, settings, {
      ...shown,
      debug(message, data) {
        probe.#noteDebug(message);
        shown.debug(message, data);
      },
    });
    (spider as ProbeSpider)[PROBE] = probe;
    return probe;
  }

  /** Fetches `requests`, calls `visit` with each outcome and follows what it returns; resolves when all are done. */
  async run(requests: readonly Request[], visit: Visit, options: ProbeFetchOptions = {}): Promise<void> {
    if (this.#fatal !== undefined) throw this.#fatal;
    if (requests.length === 0) return;
    const batch = new Batch(visit, options);
    const wrapped = requests.map((request) => this.#register(request, batch, true).request);
    // Queued before the crawl starts, so its first lease takes them; later batches wait for its next look (250 ms).
    await this.#frontier.push(wrapped);
    this.#running ??= this.#crawl.run().then(
      () => {
        // Ended by itself, not by close(): nothing in a probe's settings should end it, but a wait must not hang.
        if (this.#frontier.closing) return;
        this.#end(new CommandError(`the crawl stopped before every page was fetched: ${this.#crawl.stopReason}`));
      },
      (error) => this.#end(error),
    );
    await batch.finished;
    if (this.#fatal !== undefined) throw this.#fatal;
    if (batch.error !== undefined) throw batch.error;
  }

  /** The crawl has ended: every batch waiting ends with `error`, and so does every later run(). */
  #end(error: unknown): void {
    this.#fatal = error;
    for (const pending of this.#pending.values()) pending.batch.abort();
  }

  /** Fetches one request and returns what became of it. */
  async fetch(request: Request, options: ProbeFetchOptions = {}): Promise<ProbeOutcome> {
    let outcome: ProbeOutcome | undefined;
    await this.run([request], (got) => void (outcome = got), options);
    return outcome!;
  }

  /** Ends the crawl: closes the browser and whatever else it opened. */
  async close(): Promise<void> {
    this.#frontier.closing = true;
    if (this.#running === undefined) return;
    this.#crawl.stop("finished");
    await this.#running;
  }

  #register(request: Request, batch: Batch, start: boolean): { id: number; request: Request } {
    const id = this.#nextId++;
    const meta: Record<string, unknown> = { ...request.meta, [PROBE_ID]: id };
    if (batch.options.allStatuses) meta.handle_httpstatus_all = true;
    batch.left++;
    this.#pending.set(id, { asked: request, batch, settled: false, followed: [] });
    // A request asked for by the user is fetched even when the crawl has fetched it before.
    const dontFilter = start || request.dontFilter;
    return { id, request: request.replace({ callback: CALLBACK, errback: ERRBACK, meta, dontFilter }) };
  }

  /** The request as asked, at the depth the crawl fetched it at. */
  #asked(pending: Pending, fetched: Request): Request {
    return fetched.depth === pending.asked.depth ? pending.asked : pending.asked.replace({ depth: fetched.depth });
  }

  /** The probe spider's callback: the page goes to its visit, and the requests the visit returns are yielded. */
  async onPage(page: Page): Promise<Request[]> {
    const pending = this.#pending.get(page.request.meta[PROBE_ID] as number);
    if (!pending || pending.settled) return [];
    pending.settled = true;
    const request = this.#asked(pending, page.request);
    // The page as the spider's callback would get it: the response, and the request with its own callback and meta.
    const asked = new Page(page.response, request);
    const next = await settle(pending, { kind: "page", page: asked, request });
    return next.map((follow) => {
      const entry = this.#register(follow, pending.batch, false);
      pending.followed.push(entry.id);
      return entry.request;
    });
  }

  /** The probe spider's errback. */
  async onFailure(failure: Failure): Promise<void> {
    const pending = this.#pending.get(failure.request.meta[PROBE_ID] as number);
    if (!pending || pending.settled) return;
    pending.settled = true;
    const error = failure.error instanceof Error ? failure.error : new Error(String(failure.error));
    await settle(pending, { kind: "failed", error, request: this.#asked(pending, failure.request) });
  }

  /** A page finished: it, or any request its visit asked to follow that the crawl did not queue, was dropped. */
  #finished(lease: Lease, yielded: readonly Request[]): void {
    const id = lease.request.meta[PROBE_ID] as number;
    const pending = this.#pending.get(id);
    if (!pending) return;
    // A retry goes back to the queue in place of its request (src/fetch/retry.ts), carrying the same meta: the
    // request is still on its way, and its page or failure comes with the retry's lease.
    if (!pending.settled && yielded.some((request) => request.meta[PROBE_ID] === id)) return;
    this.#pending.delete(id);
    const queued = new Set(yielded.map((request) => request.meta[PROBE_ID] as number));
    for (const followed of pending.followed) {
      if (queued.has(followed)) continue;
      const lost = this.#pending.get(followed)!;
      this.#pending.delete(followed);
      const reason = this.#reasonFor(lost.asked.url) ?? "dropped by the crawl's rules (offsite, depth or duplicate)";
      void settle(lost, { kind: "dropped", reason, request: lost.asked }).finally(() => lost.batch.done());
    }
    if (pending.settled) {
      pending.batch.done();
      return;
    }
    pending.settled = true;
    const reason = this.#reasonFor(lease.request.url) ?? "dropped before it was fetched (by a middleware)";
    void settle(pending, { kind: "dropped", reason, request: pending.asked }).finally(() => pending.batch.done());
  }

  #noteDebug(message: string): void {
    this.#recentDebug.push(message);
    if (this.#recentDebug.length > 200) this.#recentDebug.shift();
  }

  /** Why the crawl dropped `url`, from its debug lines (robots.txt, offsite, depth), when one says. */
  #reasonFor(url: string): string | undefined {
    for (let i = this.#recentDebug.length - 1; i >= 0; i--) {
      const line = this.#recentDebug[i];
      if (line === `robots.txt forbids ${url}`) return "forbidden by robots.txt";
      if (line.startsWith(`dropped ${url} (`)) return `dropped (${line.slice(`dropped ${url} (`.length)}`;
    }
    return undefined;
  }
}

/** Runs a visit; its first error is kept, to be thrown by run() once the batch is done, and nothing is followed. */
async function settle(pending: Pending, outcome: ProbeOutcome): Promise<Request[]> {
  try {
    return [...(await pending.batch.visit(outcome)) ?? []];
  } catch (error) {
    pending.batch.error ??= error;
    return [];
  }
}

const PROBE: unique symbol = Symbol("netweir.probe");
type ProbeSpider = Spider & { [PROBE]: Probe };

/**
 * An instance of a subclass of the spider's class, with the spider's own properties (its arguments), whose
 * probe callback and errback hand every request back to the probe.
 */
function probeSpider(base: Spider): Spider {
  const baseClass = base.constructor as SpiderClass;
  const probeClass = class extends baseClass {
    [PROBE]!: Probe;
    override async *start() {}
    async *netweirProbePage(page: Page) {
      yield* await this[PROBE].onPage(page);
    }
    async netweirProbeFailure(failure: Failure) {
      await this[PROBE].onFailure(failure);
    }
  };
  // Named as the spider, for its name and its queue key when it has no `name`.
  Object.defineProperty(probeClass, "name", { value: baseClass.name });
  const spider = new probeClass();
  Object.assign(spider, base);
  return spider;
}
