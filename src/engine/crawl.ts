/**
 * A crawl: one spider, one frontier, one process's worth of slots, stats and output. It owns all of its state, so
 * two crawls in one process share nothing. `run()` resolves with the final stats once everything is closed.
 */
import type { SpiderSource } from "./worker_pool.ts";
import { Downloader } from "../fetch/downloader.ts";
import { type RobotsErrors, RobotsTxt } from "../fetch/robots.ts";
import { createLogger, type LogLevel } from "../log.ts";
import type { Frontier, Lease } from "../queue/frontier.ts";
import { MemoryFrontier } from "../queue/memory.ts";
import type { SettingValues } from "../settings/table.ts";
import { Request } from "../spider/request.ts";
import { type Spider, spiderName } from "../spider/spider.ts";
import type { Logger } from "../spider/types.ts";
import { Admission } from "./admission.ts";
import type { CrawlContext } from "./context.ts";
import { type ItemSink, PipelineChain } from "./items.ts";
import { countedLimitReached } from "./limits.ts";
import { type Pending, processPending } from "./page_flow.ts";
import { Slots } from "./slots.ts";
import { type HostState, hostState } from "./host_state.ts";
import { hostRenders } from "../settings/by_host.ts";
import { Stats, type StatsRecord } from "./stats.ts";
import { startWatchers } from "./watchers.ts";
import { Fetchers } from "./fetchers.ts";
import { openBrowser, robotsFetcher } from "./crawl_fetching.ts";
import { HttpFetcher } from "./http_fetcher.ts";
import { type CrawlPart, crawlParts } from "./parts.ts";
import { retryRequest } from "../fetch/retry.ts";
import { inPage } from "./page_scope.ts";
import { containUncaught } from "./uncaught.ts";
import { ItemMonitor } from "./item_monitor.ts";
import type { ItemSchema } from "./item_schema.ts";
import { judgeMonitors } from "./monitors.ts";
import { openSessionPool } from "./session_flow.ts";
import { RenderAuto } from "./render_auto.ts";
import { IDLE_POLL_MS, LeaseIntake } from "./lease_intake.ts";
import { WaitingRoom } from "./waiting_room.ts";

/** What a {@link Crawl} runs with besides its spider. */
export interface CrawlOptions {
  /** Resolved settings (see resolveCrawlSettings). */
  settings: SettingValues;
  /** Where requests wait; a new memory frontier when not given. */
  frontier?: Frontier;
  /** Where items go; nowhere when not given. */
  sink?: ItemSink;
  /** Where the crawl's log lines go; a logger on standard error at the `logLevel` setting when not given. */
  log?: Logger;
  /** Milliseconds a stop waits for running callbacks before it gives their requests back (default 10 s). */
  stopGraceMs?: number;
  /** The spider's file and arguments, which callback workers (`workers` above 0) load the spider from. */
  spiderSource?: SpiderSource;
  /**
   * Whether the crawl is the program's whole work (`netweir crawl`): then an error nothing caught that no page of it
   * is named in (Deno's throw in a timer) is the spider's too, counted and survived. Otherwise (the default) only
   * errors raised for one of its pages are, and the rest are left to the program (src/engine/uncaught.ts).
   */
  ownsProcess?: boolean;
  /** The `monitors` setting's schema, compiled already (assembleCrawl does, before any file is opened). */
  itemSchema?: ItemSchema;
}

const START_BATCH = 100;
/**
 * How long a stop waits for callbacks still running (downloads end at once; a callback cannot be interrupted).
 * Past it their requests go back to the frontier unfinished and the crawl closes without them.
 */
const STOP_GRACE_MS = 10_000;

const discard: ItemSink = { write: () => Promise.resolve(), close: () => Promise.resolve() };

/**
 * One crawl: a spider, its frontier, its slots, stats and output. It owns all of its state, so two crawls in one
 * process share nothing. Most programs call {@link runSpider}, which builds the settings, the feeds and the frontier
 * and runs a Crawl; build one yourself to give it a frontier or an item sink of your own, or to stop it from code.
 *
 * @example A crawl of a site served on 127.0.0.1, items collected by a sink of the program's own
 * ```ts
 * import { Crawl, type Item, type Page, resolveCrawlSettings, Settings, Spider } from "netweir";
 * import assert from "node:assert/strict";
 *
 * const pages: Record<string, string> = {
 *   "/": `<a href="/a">a</a> <a href="/b">b</a>`,
 *   "/a": `<h1>A</h1>`,
 *   "/b": `<h1>B</h1>`,
 * };
 * const site = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
 *   const body = pages[new URL(request.url).pathname];
 *   return new Response(body ?? "not here", { status: body ? 200 : 404, headers: { "content-type": "text/html" } });
 * });
 *
 * class Letters extends Spider {
 *   override startUrls = [`http://127.0.0.1:${site.addr.port}/`];
 *   override *parse(page: Page) {
 *     const heading = page.css("h1").text();
 *     if (heading) yield { heading };
 *     for (const link of page.links()) yield page.follow(link);
 *   }
 * }
 *
 * const items: Item[] = [];
 * const settings = resolveCrawlSettings({ overrides: new Settings({ logLevel: "error", obeyRobotsTxt: false }) });
 * const crawl = new Crawl(new Letters(), {
 *   settings,
 *   sink: {
 *     write: (written) => {
 *       items.push(...written);
 *       return Promise.resolve();
 *     },
 *     close: () => Promise.resolve(),
 *   },
 * });
 * const stats = await crawl.run();
 * await site.shutdown();
 *
 * assert.deepEqual(items.map((item) => item.heading).sort(), ["A", "B"]);
 * assert.equal(stats.pages, 3);
 * ```
 */
export class Crawl {
  /** The crawl's live stats. */
  readonly stats: Stats = new Stats();
  /** The spider it runs. */
  readonly spider: Spider;
  /** The settings it runs with. */
  readonly settings: SettingValues;
  readonly #frontier: Frontier;
  readonly #log: Logger;
  readonly #abort = new AbortController();
  readonly #ctx: CrawlContext;
  /** Leased requests not started yet, by host. */
  readonly #waiting: WaitingRoom;
  /** When and how much this process leases. */
  readonly #intake: LeaseIntake;
  /** Requests being processed, by their task. */
  readonly #inFlight = new Map<Promise<void>, Pending>();
  /** Pages done here whose finish the frontier has not confirmed yet (see #finishLater). */
  readonly #finishing = new Set<Promise<void>>();
  #startsDone = false;
  #stopReason: string | null = null;
  #fatal: unknown = undefined;
  readonly #stopGraceMs: number;
  readonly #ownsProcess: boolean;
  readonly #parts: CrawlPart[];
  /** The parts opened so far, closed in reverse order at the end. */
  readonly #opened: CrawlPart[] = [];
  /** What the item monitors see of each item; only when the `monitors` setting is set. */
  readonly #itemMonitor: ItemMonitor | undefined;
  #wake: () => void = () => {};

  /** A crawl of `spider`; nothing is fetched until `run()`. */
  constructor(spider: Spider, options: CrawlOptions) {
    this.spider = spider;
    this.settings = options.settings;
    this.#log = options.log ?? createLogger(options.settings.logLevel as LogLevel);
    this.#frontier = options.frontier ?? new MemoryFrontier();
    this.#stopGraceMs = options.stopGraceMs ?? STOP_GRACE_MS;
    this.#ownsProcess = options.ownsProcess ?? false;
    spider.log = this.#log;
    this.#frontier.onFailure?.((error) => this.#fail(error));
    // A shared queue's heartbeat reports this process's totals, for the crawl-wide stats of `netweir queue status`.
    this.#frontier.shareTotals?.(() => ({
      pages: this.stats.get("pages"),
      items: this.stats.get("items"),
      errors: this.stats.get("errors"),
    }));
    // Links dropped as queued lately may not be queued: the crawl and its workers forget them (the frontier gives
    // back the pages held now, whose links may have been dropped so).
    this.#frontier.onForget?.(() => {
      this.#ctx.admission.forgetQueued();
      this.#ctx.workers?.forgetQueued();
    });
    const saved = this.#frontier.savedStats?.();
    if (saved) this.stats.carryOn(saved);
    const monitors = this.settings.monitors;
    this.#itemMonitor = monitors ? new ItemMonitor(monitors, this.stats, this.#log, options.itemSchema) : undefined;
    const downloader = new Downloader(this.settings, this.#log);
    const http = new HttpFetcher(() => ctx);
    const ctx: CrawlContext = this.#ctx = {
      spider,
      settings: this.settings,
      log: this.#log,
      stats: this.stats,
      frontier: this.#frontier,
      finish: (lease, yielded) => this.#finishLater(lease, yielded),
      downloader,
      fetchers: new Fetchers(http, () => openBrowser(ctx, http), hostRenders(this.settings.hosts)),
      renderAuto: new RenderAuto(
        this.settings,
        spider,
        this.stats,
        this.#log,
        (request) => ctx.fetchers.renders(request),
      ),
      cache: undefined,
      deltafetch: undefined,
      archives: undefined,
      workers: undefined,
      robots: this.settings.obeyRobotsTxt
        ? new RobotsTxt(
          robotsFetcher(downloader),
          this.settings.userAgent,
          Date.now,
          this.settings.robotsTxtErrors as RobotsErrors,
        )
        : undefined,
      slots: new Slots(this.settings),
      sessions: openSessionPool(this.settings, this.stats, this.#log, this.#frontier.savedSessions?.()),
      admission: new Admission(this.settings, spider.allowedDomains),
      pipelines: new PipelineChain(spider, this.stats, this.#log, this.#itemMonitor),
      sink: options.sink ?? discard,
      signal: this.#abort.signal,
    };
    // A retired session's browser context goes with it (its cookies and storage are the session's).
    ctx.sessions?.onRetire((id) => ctx.fetchers.dropSession(id));
    this.#waiting = new WaitingRoom(ctx);
    this.#intake = new LeaseIntake({
      ctx,
      waiting: this.#waiting,
      inFlight: () => Array.from(this.#inFlight.values(), (pending) => pending.request),
      inFlightCount: () => this.#inFlight.size,
      finishingCount: () => this.#finishing.size,
      finishLater: (lease, yielded) => this.#finishLater(lease, yielded),
      fail: (error) => this.#fail(error),
      wake: () => this.#wake(),
      stopping: () => this.#stopReason !== null,
    });
    this.#parts = crawlParts(ctx, { spiderSource: options.spiderSource, fail: (error) => this.#fail(error) });
  }

  /** Whether a stop has been asked for, and why. */
  get stopReason(): string | null {
    return this.#stopReason;
  }

  /** Stops the crawl: downloads in flight end, requests taken and not finished go back to the frontier. */
  stop(reason: string): void {
    if (this.#stopReason !== null) return;
    this.#stopReason = reason;
    this.#log.info(`stopping: ${reason}`);
    this.#abort.abort();
    this.#wake();
  }

  /** Runs the crawl to its end and returns the final stats. Rejects only on a failure of the crawl itself. */
  async run(): Promise<StatsRecord> {
    const watchers = startWatchers(this, this.#frontier, this.#log);
    const releaseUncaught = containUncaught({
      owner: this,
      ownsProcess: this.#ownsProcess,
      spider: spiderName(this.spider),
      log: this.#log,
      stats: this.stats,
    });
    try {
      await this.#itemMonitor?.open();
      for (const part of this.#parts) {
        await part.open();
        this.#opened.push(part);
      }
      await this.#ctx.pipelines.open();
      const starting = this.#pushStartRequests().catch((error) => this.#fail(error));
      await this.#loop();
      await starting;
    } catch (error) {
      this.#fail(error);
    } finally {
      await this.#shutdown();
      await watchers.stop();
      releaseUncaught();
    }
    if (this.#fatal !== undefined) throw this.#fatal;
    return this.statsRecord();
  }

  /** The stats as they stand, the frontier's counters included. */
  statsRecord(): StatsRecord {
    return this.stats.toJSON(this.#frontier.stats());
  }

  /** What the crawl keeps per host now (see host_state.ts): for tests, benchmarks and a watchful program. */
  hostState(): HostState {
    return hostState(this.#ctx, this.#waiting.hosts);
  }

  /** Requests waiting in this process plus in the frontier's view (for the progress line). */
  get localCounts(): { waiting: number; inFlight: number } {
    return { waiting: this.#waiting.count, inFlight: this.#inFlight.size };
  }

  #fail(error: unknown): void {
    if (this.#fatal === undefined) this.#fatal = error;
    this.stop("error");
  }

  async #pushStartRequests(): Promise<void> {
    let batch: Request[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const admitted = batch.filter((request) => {
        const refusal = this.#ctx.admission.checkYielded(request);
        if (refusal) this.stats.dropped(refusal.reason);
        return !refusal;
      });
      batch = [];
      await this.#frontier.push(admitted);
      this.#intake.changed();
      this.#wake();
    };
    for await (const start of this.spider.start()) {
      if (this.#stopReason !== null) break;
      batch.push(typeof start === "string" ? new Request({ url: start }) : start);
      if (batch.length >= START_BATCH) await flush();
    }
    await flush();
    this.#startsDone = true;
    this.#wake();
  }

  async #loop(): Promise<void> {
    while (this.#stopReason === null) {
      // After a lease that drained the queue, ask again only once something changed (a page finished, start
      // requests arrived, or the idle poll below), or the loop would spin on promises and starve timers and I/O.
      this.#intake.maybeLease();
      const nextReady = this.#waiting.startReady(
        () => this.#inFlight.size < this.settings.concurrency,
        (pending) => this.#run(pending),
      );
      if (this.#stopReason !== null) break;
      // Pages still finishing are activity too: their requests are not in the queue yet. Each one wakes the loop.
      const busy = this.#inFlight.size > 0 || this.#waiting.count > 0 || this.#finishing.size > 0;
      if (!busy && this.#intake.idle) {
        if (this.#startsDone && await this.#frontier.ended()) {
          this.stop("finished");
          break;
        }
        await this.#sleep(IDLE_POLL_MS);
        this.#intake.changed();
        continue;
      }
      await this.#sleep(Math.min(1000, Math.max(0, nextReady - Date.now())));
    }
  }

  /**
   * Waits `ms`, or until woken. A wake runs the loop at the end of the event loop's turn, not at once: the pages that
   * finish in one turn (dozens, when responses wait while the crawl parses) then free their slots together and are
   * refilled by one lease. Woken at once, the loop ran and leased once per page (63,000 turns of it and 21,000 leases
   * of one request for the 21,005-page shop, against 5,800 and 1,900 when something else already grouped them), which
   * made a Node crawl a quarter slower.
   */
  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      let woken = false;
      this.#wake = () => {
        if (woken) return;
        woken = true;
        setImmediate(done);
      };
    });
  }

  /**
   * Finishes a page without holding its slot until the frontier answers. With a shared queue the answer is a
   * round trip away, and on a paginated site the next page's link is in this very finish: leasing again at once,
   * rather than after the answer, lets that lease follow the finish on the same connection and find the link
   * already queued. Shutdown waits for every one of them before the frontier is closed.
   */
  #finishLater(lease: Lease, yielded: readonly Request[]): void {
    const done: Promise<void> = this.#frontier.finish(lease, yielded)
      .catch((error) => this.#fail(error))
      .finally(() => {
        if (yielded.length > 0) this.#intake.queued();
        this.#finishing.delete(done);
        this.#intake.changed();
        this.#wake();
      });
    this.#finishing.add(done);
  }

  #run(pending: Pending): void {
    const scope = { owner: this, spider: spiderName(this.spider), url: pending.request.url };
    const task = inPage(scope, () => processPending(this.#ctx, pending)).then(async (outcome) => {
      if (outcome.kind === "retry") {
        // Back through the queue, in place of the request: its count and its wait are kept there, so a stop, a
        // checkpoint resumed or a lease reclaimed from a dead process carries on from them (see retryRequest).
        this.#finishLater(pending.lease, [retryRequest(pending.lease.request, outcome.delay, outcome.meta)]);
      } else if (outcome.kind === "abandoned") {
        await this.#frontier.giveBack([pending.lease]);
      } else {
        const limit = countedLimitReached(this.settings, this.stats);
        if (limit) this.stop(limit);
      }
    }).catch((error) => this.#fail(error)).finally(() => {
      this.#inFlight.delete(task);
      this.#intake.changed();
      this.#wake();
    });
    this.#inFlight.set(task, pending);
  }

  async #shutdown(): Promise<void> {
    if (this.#stopReason === null) this.stop("error");
    const leftover: Lease[] = [];
    if (this.#inFlight.size > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const grace = new Promise<void>((resolve) => timer = setTimeout(resolve, this.#stopGraceMs));
      await Promise.race([Promise.allSettled([...this.#inFlight.keys()]), grace]);
      clearTimeout(timer);
      for (const [task, pending] of this.#inFlight) {
        this.#log.warning(`a callback on ${pending.request.url} did not stop; its request goes back unfinished`);
        leftover.push(pending.lease);
        this.#inFlight.delete(task);
      }
    }
    // Finishes on their way end by themselves: a frontier answers or fails within its own time limits.
    while (this.#finishing.size > 0) await Promise.allSettled([...this.#finishing]);
    leftover.push(...this.#waiting.drain());
    // A failure to close a part that writes files (feeds, archives) or to give requests back fails the crawl.
    const closing: Array<[string, () => Promise<unknown>, boolean?]> = [
      ["give back requests", () => this.#frontier.giveBack(leftover), true],
      ["close pipelines", () => this.#ctx.pipelines.close()],
      ["close feeds", () => this.#ctx.sink.close(), true],
      ...[...this.#opened].reverse().map((part): [string, () => Promise<unknown>, boolean] => [
        `close ${part.name}`,
        () => part.close(),
        part.mustClose,
      ]),
      ["close spider", async () => await this.spider.closed(this.#stopReason!)],
      ["save stats", () => Promise.resolve(this.#frontier.saveStats?.(this.stats.toJSON()))],
      [
        "save sessions",
        () => Promise.resolve(this.#ctx.sessions && this.#frontier.saveSessions?.(this.#ctx.sessions.save())),
      ],
      ["close frontier", () => this.#frontier.close()],
    ];
    for (const [what, step, fatal] of closing) {
      try {
        await step();
      } catch (error) {
        // The error the crawl ends with is the command's one error line (a failed upload names its kept spool
        // there); logging it too would say it twice.
        if (fatal && this.#fatal === undefined) this.#fatal = error;
        else this.#log.error(`failed to ${what}: ${(error as Error)?.message ?? error}`);
      }
    }
    this.#ctx.downloader.close();
    this.stats.finishReason = this.#stopReason;
    this.stats.finishTime = new Date();
    // Judged last, on the stats as they end (the stats file written at the end holds the verdict too).
    const monitors = this.settings.monitors;
    if (monitors) this.stats.monitors = judgeMonitors(monitors, this.statsRecord());
  }
}
