/**
 * The Redis store of the frontier: one queue and one duplicate filter shared by every process of a crawl, with
 * leases, heartbeats, reclaim of dead processes' requests, and idle detection. docs/design/distributed.md walks
 * through every step; this file keeps to the mechanics.
 *
 * Failure rules (shared/spec/distributed.md): every call is retried at most a second apart; no answer is awaited
 * longer than a third of a lease; once a lease has passed since the last heartbeat that got through, or queueing
 * has failed for a whole lease, the process stops with QueueError (by then the others have its requests).
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { QueueError } from "../errors.ts";
import type { Request } from "../spider/request.ts";
import type { Spider } from "../spider/spider.ts";
import type { Logger } from "../spider/types.ts";
import { BadEntryLog } from "./bad_entries.ts";
import { decodeRequest, DEFAULT_ENTRY_LIMITS, encodeRequest, type EntryLimits } from "./codec.ts";
import { fingerprint } from "../spider/fingerprint.ts";
import { RecentFingerprints } from "./recent_fingerprints.ts";
import type { Frontier, FrontierStats, FrontierStatus, Lease, LeaseOptions, ProcessTotals } from "./frontier.ts";
import { heartbeatReport, readStatus } from "./live_processes.ts";
import { PageRate } from "./page_rate.ts";
import { describe, isLoading, mayPass, RedisConnection, type ScriptArg } from "./redis_client.ts";
import type { ScriptName } from "./redis_scripts.ts";
import { maskQueueUrl, parseRedisUrl } from "../settings/redis_url.ts";
import { type Clock, REAL_CLOCK } from "../runtime/clock.ts";
import { runtime } from "../runtime/mod.ts";
import { retry } from "./retry.ts";

export interface RedisFrontierOptions {
  url: string;
  /** The crawl's key (the spider's name unless queueKey is set). */
  key: string;
  spider: Spider;
  log: Logger;
  /** Seconds of silence before a process is taken for dead (queueLease). */
  leaseSeconds: number;
  /** Seconds the crawl must stay idle before this process ends; null: never (queueIdle). */
  idleSeconds: number | null;
  /** Whether this is Windows (no unix sockets there). */
  windows?: boolean;
  /** Bounds on an entry, read or written (the queue_entry_max_* settings; their defaults when absent). */
  limits?: EntryLimits;
  /**
   * With politeness_scope=crawl: per_domain and min_delay (seconds) held for the whole crawl, through Redis. Absent:
   * each process keeps them on its own.
   */
  politeness?: { perDomain: number; minDelay: number; hosts?: readonly HostLimit[] };
  /**
   * Requests to one host this process may have in flight (per_domain), one number or a host's own (its `hosts`
   * entry). A lease takes from a host this process already holds that many of only when no other host has requests
   * for it. Absent: no such preference.
   */
  perDomain?: number | ((host: string) => number);
  /**
   * Where the process's own lease deadlines are measured: when its last heartbeat got through, how long a call has
   * kept failing, when the next beat is due. The real clock by default; tests move one by hand. (What the crawl as a
   * whole decides, which processes are silent and how long it has been idle, is measured by Redis's own clock.)
   */
  clock?: Clock;
}

/**
 * A `hosts` pattern's own per_domain and min_delay (seconds), held for the whole crawl with politeness_scope=crawl:
 * the lease script matches each host to the patterns as src/settings/hosts.ts does.
 */
export interface HostLimit {
  pattern: string;
  perDomain: number;
  minDelay: number;
}

/**
 * The prefix of every key of a crawl: `netweir:{KEY}`, a "}" in the key written twice. The braces make the prefix
 * of one crawl never the start of another's (`netweir:{pk}:` is not how `netweir:{pk:q}:` starts), so clearing
 * crawl `pk` cannot reach the keys of crawls named `pk:held` or `pk:q`.
 */
export function keyPrefix(key: string): string {
  return `netweir:{${key.replaceAll("}", "}}")}}`;
}

/**
 * One request's line of a push payload: "FINGERPRINT PRIORITY DONT_FILTER HOST ENCODED", the fingerprint as the
 * 32 hex digits the filter keeps (its first 16 bytes), the host as Request.host has it (the queue keeps a list per
 * host). Neither the host nor the encoded JSON ever holds a space or a raw newline before the JSON starts.
 */
export function pushLine(request: Request, encoded: string, fp = filterFingerprint(request)): string {
  return startLine(fp, request.priority, request.dontFilter, request.host, encoded);
}

/** What the duplicate filter keeps of a request's fingerprint: its first 32 hex digits (16 bytes). */
export function filterFingerprint(request: Request): string {
  return fingerprint(request).slice(0, 32);
}

/** A push payload's line from its parts (`netweir queue push` builds them without a Request). */
export function startLine(fp: string, priority: number, dontFilter: boolean, host: string, encoded: string): string {
  return `${fp} ${priority} ${dontFilter ? 1 : 0} ${host} ${encoded}`;
}

/** A wait of `ms` on `clock`, for the retries between failed calls. */
function clockSleep(clock: Clock): (ms: number) => Promise<void> {
  return (ms) => new Promise<void>((resolve) => clock.setTimeout(resolve, ms));
}

/** Entries one lease call takes at most when it is crossing junk (see lease). */
const MAX_BITE = 1000;

/** Pages finished in one FINISH call, at most. */
const MAX_FINISH_BATCH = 64;

interface PendingFinish {
  lease: Lease;
  lines: PushLine[];
  /** Its payload once made (see RedisFrontier's #payloadOf): a call tried again sends the same. */
  payload?: Payload;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** A lease waiting to go with the next FINISH call; it gets the raw `take` part of the answer. */
interface PendingLease {
  max: number;
  skip: string[];
  delays: string[];
  resolve: (reply: unknown[]) => void;
  reject: (error: unknown) => void;
}

/** A FINISH pair that releases a lease and queues nothing. */
const releasePair = (id: string) => [id, ""];

/** A payload, and the times its process had forgotten what it knew when it was made (RedisFrontier's #epoch). */
interface Payload {
  text: string;
  epoch: number;
}

/** A request ready to travel: its payload line and what the filter keeps of its fingerprint. */
interface PushLine {
  fp: string;
  line: string;
  dontFilter: boolean;
}

/** Why Redis refused a call as stale (see redis_scripts.ts, stale): what it kept of this process's mark, and why. */
interface Stale {
  kept: number;
  why: string;
}

/** The NWSTALE answer of a script, or undefined for any other error. */
function staleAnswer(error: unknown): Stale | undefined {
  const match = /^NWSTALE (\d+) (\w+)/.exec((error as Error)?.message ?? "");
  return match ? { kept: Number(match[1]), why: match[2] } : undefined;
}

/** One line's start saying why a process forgets what it knew was queued (see RedisFrontier's #forget). */
function forgetReason(why: string | undefined, leaseMs: number): string {
  if (why === "dead") {
    return `this process was taken for dead (silent for over ${leaseMs / 1000} s, queue_lease) and what it held went ` +
      "back to the queue";
  }
  if (why === "cleared") {
    return "the crawl's keys were deleted while this process ran (netweir queue clear): the requests waiting and held " +
      "are gone, and the pages they lead to will not be fetched unless pushed again";
  }
  if (why === "lost") return "Redis has lost the crawl's data (restarted without persistence, or flushed)";
  if (why?.startsWith("released:")) {
    return `${why.slice(9)} finished requests were no longer held (taken back, or removed from Redis); their links ` +
      "were not queued by this process";
  }
  return "Redis has lost changes this process made (restarted from older data, or a replica that was behind took over)";
}

/** A call Redis refused as stale, whose caller must decide again what to send (the pages it held are given back). */
class StaleCall extends Error {}

export class RedisFrontier implements Frontier {
  readonly #connection: RedisConnection;
  readonly #options: RedisFrontierOptions;
  readonly #prefix: string;
  /** This process's id in the queue: host, pid-ish random, so two processes never share one. */
  readonly #pid: string;
  readonly #leaseMs: number;
  /**
   * Lease ids this process holds, to spot any the server holds for it that it never heard of, with the host of
   * each (empty until the entry is decoded, and for entries being released as bad).
   */
  readonly #held = new Map<string, string>();
  /** How many requests this process holds per host: the hosts a lease may be asked to pass over. */
  readonly #heldHosts = new Map<string, number>();
  /** Lease ids of entries found bad: released (never queued again) with the next call that finishes or leases. */
  #releasing: string[] = [];
  /** Host delays shared with the crawl (politeness_scope=crawl), so each goes once, and again only when it changes. */
  readonly #sharedDelays = new Map<string, number>();
  readonly #limits: EntryLimits;
  readonly #badEntries: BadEntryLog;
  /**
   * Requests this process pushed or leased: the filter has them, so a link to one again is not sent to Redis. Only
   * while Redis keeps what this process did: forgotten when it may not (see #forget).
   */
  #known = new RecentFingerprints();
  /** How many of this process's calls Redis said it has kept (P:marks), sent with each call to be checked. */
  #ack = 0;
  /** Counts the times this process forgot what it knew; a call remembers the one it was sent in. */
  #epoch = 0;
  /** Leases held when this process last forgot: their pages' links may have been dropped as known, so they go back. */
  readonly #tainted = new Set<string>();
  #onForget: (() => void) | undefined;
  readonly #stats = { pushed: 0, leased: 0, leases_reclaimed: 0 };
  #droppedUnqueueable = 0;
  /** Pages waiting to be finished while a FINISH call is on its way. */
  readonly #finishing: PendingFinish[] = [];
  #finishInFlight = false;
  /** A lease asked for while pages wait to be finished: it goes with them, in the same call. */
  #leaseWithFinish: PendingLease | undefined;
  /** Lease calls on their way: their ids are held in Redis before this process has heard of them. */
  #leasesInFlight = 0;
  readonly #clock: Clock;
  #lastHeartbeat: number;
  #heartbeatTimer: unknown;
  #fatal: QueueError | undefined;
  #onFailure: ((error: Error) => void) | undefined;
  /** This process's running totals, which each heartbeat reports to the crawl (see shareTotals). */
  #totals: () => ProcessTotals = () => ({ pages: 0, items: 0, errors: 0 });
  readonly #pageRate = new PageRate();
  #closed = false;
  /** Set after a lease call failed: the server may have run it anyway, so held ids are checked at the next beat. */
  #maybeOrphans = false;

  private constructor(connection: RedisConnection, options: RedisFrontierOptions) {
    this.#connection = connection;
    this.#options = options;
    this.#prefix = keyPrefix(options.key);
    this.#leaseMs = options.leaseSeconds * 1000;
    this.#clock = options.clock ?? REAL_CLOCK;
    this.#lastHeartbeat = this.#clock.now();
    this.#pid = `${hostname()}:${randomBytes(6).toString("hex")}`;
    this.#limits = options.limits ?? DEFAULT_ENTRY_LIMITS;
    this.#badEntries = new BadEntryLog(options.log, "the queue");
  }

  /**
   * Connects, checks the server, registers this process and starts its heartbeat. A server that cannot be reached
   * is tried again, at most a second apart, for up to a lease (machines of a crawl started together with Redis, or
   * while it restarts, wait for it); a refused login or an unusable server fails at once.
   */
  static async open(options: RedisFrontierOptions): Promise<RedisFrontier> {
    const target = parseRedisUrl(options.url, { windows: options.windows });
    const timeoutMs = Math.ceil(options.leaseSeconds * 1000 / 3);
    const warn = (message: string) => options.log.warning(message);
    const clock = options.clock ?? REAL_CLOCK;
    const started = clock.now();
    const connection = await retry(
      () => RedisConnection.open(target, options.url, timeoutMs, warn),
      (error, attempt) => {
        const waited = clock.now() - started;
        if (!mayPass(error) || waited >= options.leaseSeconds * 1000) {
          if (attempt === 0 || !(error instanceof QueueError)) throw error;
          throw new QueueError(`${error.message} (tried for ${Math.round(waited / 1000)} s)`, { cause: error });
        }
        if (attempt === 0) {
          warn(`${(error as Error).message}; trying again for up to ${options.leaseSeconds} s`);
        }
        return options.leaseSeconds * 1000 - waited;
      },
      clockSleep(clock),
    );
    const frontier = new RedisFrontier(connection, options);
    // A server restarted with persistence answers LOADING until its data is read: a wait, as for one that is down.
    await retry(() => frontier.#heartbeat(true), (error, attempt) => {
      const waited = clock.now() - started;
      if (!isLoading(error) || waited >= options.leaseSeconds * 1000) {
        connection.close();
        if (!isLoading(error)) throw error;
        throw new QueueError(
          `${maskQueueUrl(options.url)} was still loading its data after ${Math.round(waited / 1000)} s`,
        );
      }
      if (attempt === 0) {
        warn(`${maskQueueUrl(options.url)} is loading its data; waiting for up to ${options.leaseSeconds} s`);
      }
      return options.leaseSeconds * 1000 - waited;
    }, clockSleep(clock));
    frontier.#scheduleHeartbeat();
    return frontier;
  }

  /** The process id this frontier uses in Redis. */
  get processId(): string {
    return this.#pid;
  }

  onFailure(handler: (error: Error) => void): void {
    this.#onFailure = handler;
    if (this.#fatal) handler(this.#fatal);
  }

  #fail(error: QueueError): QueueError {
    if (!this.#fatal) {
      this.#fatal = error;
      this.#clock.clearTimeout(this.#heartbeatTimer);
      this.#onFailure?.(error);
    }
    return this.#fatal;
  }

  /**
   * Runs a script until it answers, at most a second between tries, failing for good once a lease has passed
   * since the last heartbeat got through or since this call began.
   */
  async #call(name: ScriptName, args: () => ScriptArg[], staleEnds = false): Promise<unknown> {
    const started = this.#clock.now();
    let sentAt = started;
    return await retry(async () => {
      if (this.#fatal) throw this.#fatal;
      const epoch = this.#epoch;
      sentAt = this.#clock.now();
      try {
        return await this.#connection.script(name, [this.#prefix, ...args()]);
      } catch (error) {
        const stale = staleAnswer(error);
        if (!stale) throw error;
        this.#forget(stale, epoch);
        throw new StaleCall("Redis refused the call as stale");
      }
    }, (error, attempt) => {
      if (error === this.#fatal) throw error;
      // Asked again at once, built anew (with this process's new mark, and without what it forgot), unless the
      // caller must choose again what to send.
      if (error instanceof StaleCall) {
        if (staleEnds) throw error;
        return 0;
      }
      if (this.#closed) throw new QueueError("the queue is closed");
      // A lease whose answer was lost (a timeout, or a connection that broke after the server ran it) may hold
      // requests this process never got; the next beat gives back any such ids.
      if (name === "nwFinish") this.#maybeOrphans = true;
      const now = this.#clock.now();
      if (now - this.#lastHeartbeat > this.#leaseMs && this.#frozenSince(sentAt)) {
        // Its answer may be waiting unread: a beat now says whether the queue is still there.
        this.#scheduleHeartbeat(0);
        return 0;
      }
      if (now - this.#lastHeartbeat > this.#leaseMs) {
        throw this.#fail(
          new QueueError(
            `lost the queue: no heartbeat got through for ${this.#leaseMs / 1000} s (${describe(error)})`,
          ),
        );
      }
      if (now - started > this.#leaseMs) {
        throw this.#fail(new QueueError(`the queue kept failing for ${this.#leaseMs / 1000} s: ${describe(error)}`));
      }
      if (attempt === 0) this.#options.log.warning(`queue call failed, retrying: ${describe(error)}`);
    }, clockSleep(this.#clock));
  }

  /** `read` gives this process's pages, items and errors, which each heartbeat reports (see live_processes.ts). */
  shareTotals(read: () => ProcessTotals): void {
    this.#totals = read;
  }

  /** What this beat reports: host, pid, totals and pages a second over the last minute (one sample a beat). */
  #report(): string {
    const totals = this.#totals();
    const rate = this.#pageRate.sample(this.#clock.now(), totals.pages);
    return heartbeatReport(hostname(), runtime.pid, totals, rate);
  }

  async #heartbeat(joining = false): Promise<void> {
    const report = this.#report();
    const beat = () =>
      this.#connection.script("nwHeartbeat", [
        this.#prefix,
        this.#pid,
        this.#leaseMs,
        joining ? 1 : 0,
        this.#ack,
        report,
      ]);
    const epoch = this.#epoch;
    let answer: unknown;
    try {
      answer = await beat();
    } catch (error) {
      const stale = staleAnswer(error);
      if (!stale) throw error;
      // Taken for dead, or Redis lost what this process did: it forgets, and beats again (joining anew).
      this.#forget(stale, epoch);
      answer = await beat();
    }
    const [reclaimed, bad] = (answer as unknown[]).map(Number);
    this.#lastHeartbeat = this.#clock.now();
    if (bad > 0) this.#bad(`${bad} held entries of silent processes that were not in the queue's shape`, bad);
    this.#badEntries.summarise();
    if (reclaimed > 0) {
      this.#stats.leases_reclaimed += reclaimed;
      this.#options.log.info(`took back ${reclaimed} requests from processes silent for ${this.#leaseMs / 1000} s`);
    }
    if (this.#maybeOrphans) await this.#returnOrphans();
  }

  /**
   * Whether this process itself stood still since `sentAt` (stopped with SIGSTOP, say): a call's failure came later
   * than its timeout allows, so the timeout may have fired before an answer waiting in the socket was read. Such a
   * failure says nothing about Redis, and a lease gone by meanwhile is no reason to give up before asking again.
   */
  #frozenSince(sentAt: number): boolean {
    return this.#clock.now() - sentAt > (this.#leaseMs / 3) * 1.5;
  }

  /** Gives back lease ids the server holds for this process that it never received (a lease whose answer was lost). */
  async #returnOrphans(): Promise<void> {
    // While a lease is on its way, ids it took are held in Redis but not yet known here: they are not orphans.
    if (this.#leasesInFlight > 0) return;
    const ids = await this.#connection.script("nwHeldIds", [this.#prefix, this.#pid]) as unknown[];
    const unknown = ids.map(String).filter((id) => !this.#held.has(id));
    if (unknown.length > 0) {
      const [, bad] = (await this.#connection.script("nwGiveBack", [this.#prefix, this.#pid, ...unknown]) as unknown[])
        .map(Number);
      if (bad > 0) this.#bad(`${bad} held entries that were not in the queue's shape`, bad);
    }
    this.#maybeOrphans = false;
  }

  /** Beats every third of a lease; while beats fail, tries every second until a lease has passed, then fails. */
  #scheduleHeartbeat(delay = this.#leaseMs / 3): void {
    this.#clock.clearTimeout(this.#heartbeatTimer);
    this.#heartbeatTimer = this.#clock.setTimeout(async () => {
      if (this.#closed || this.#fatal) return;
      const sentAt = this.#clock.now();
      try {
        await this.#heartbeat();
        this.#scheduleHeartbeat();
      } catch (error) {
        if (this.#closed) return;
        if (this.#clock.now() - this.#lastHeartbeat > this.#leaseMs && this.#frozenSince(sentAt)) {
          this.#scheduleHeartbeat(0);
          return;
        }
        if (this.#clock.now() - this.#lastHeartbeat > this.#leaseMs) {
          this.#fail(
            new QueueError(
              `lost the queue: no heartbeat got through for ${this.#leaseMs / 1000} s (${describe(error)})`,
            ),
          );
          return;
        }
        this.#options.log.warning(`queue heartbeat failed, retrying: ${describe(error)}`);
        this.#scheduleHeartbeat(1000);
      }
    }, delay);
  }

  /**
   * The payload lines of some requests. One that cannot travel (a callback that is not a method of the spider, meta
   * that is not JSON) is left out with an error in the log and counted as dropped.unqueueable: failing the whole
   * finish would send the page back to the queue, to fail every process that takes it in turn.
   */
  #lines(requests: readonly Request[]): PushLine[] {
    const lines: PushLine[] = [];
    for (const request of requests) {
      const fp = filterFingerprint(request);
      if (!request.dontFilter && this.#known.has(fp)) continue;
      try {
        const line = pushLine(request, encodeRequest(this.#options.spider, request, this.#limits), fp);
        lines.push({ fp, line, dontFilter: request.dontFilter });
      } catch (error) {
        if (!(error instanceof TypeError)) throw error;
        this.#droppedUnqueueable++;
        this.#options.log.error(`cannot queue ${request.url}: ${error.message}`);
      }
    }
    return lines;
  }

  /**
   * A payload of lines, leaving out the requests this process knows the filter has, as it knows it now (it may have
   * learnt more since the lines were made, or forgotten all). What is sent is known from then on: the call that sends
   * it puts it in the filter, or it was there. If that call fails for good the process stops (a queue that cannot be
   * reached for a lease); if Redis loses it, or the page it belongs to is no longer held, the process forgets.
   */
  #payload(lines: readonly PushLine[]): string {
    const sent: string[] = [];
    for (const { fp, line, dontFilter } of lines) {
      if (!dontFilter && this.#known.has(fp)) continue;
      sent.push(line);
      this.#known.add(fp);
    }
    return sent.join("\n");
  }

  /**
   * The payload of `lines`, made once: a call tried again must send what it sent (the first try put its requests among
   * those known, so a second #payload would leave them out). Made again only after the process forgot what it knew.
   */
  #payloadOf(lines: readonly PushLine[], made: Payload | undefined): Payload {
    if (made && made.epoch === this.#epoch) return made;
    return { text: this.#payload(lines), epoch: this.#epoch };
  }

  async push(requests: readonly Request[]): Promise<number> {
    if (requests.length === 0) return 0;
    const lines = this.#lines(requests);
    if (lines.length === 0) return 0;
    let made: Payload | undefined;
    const args = () => {
      made = this.#payloadOf(lines, made);
      return [made.text, this.#pid, this.#ack];
    };
    const [added, mark, aside] = (await this.#call("nwPush", args) as unknown[]).map(Number);
    this.#acknowledged(mark);
    if (aside > 0) this.#bad(`${aside} queue key(s) that were not of the queue's types, set aside`, aside);
    this.#stats.pushed += added;
    return added;
  }

  /** Notes the mark of a call Redis answered: every later call is checked against it (see redis_scripts.ts, stale). */
  #acknowledged(mark: number): void {
    if (mark > this.#ack) this.#ack = mark;
  }

  /**
   * Called when what this process remembers as queued may not be: Redis refused a call as stale (it lost changes
   * this process made, its keys were cleared, or this process was taken for dead), or a finished page was no longer
   * held. It forgets the links it knew were queued (and has the crawl forget its own, through onForget); the pages it
   * holds now may have had links dropped as known, so they go back to the queue instead of being finished; and it
   * looks for leases Redis holds for it that it does not know of. `epoch` is the one the refused call was sent in:
   * calls sent before an earlier forget need no second one.
   */
  #forget(stale: Stale | undefined, epoch: number): void {
    if (epoch !== this.#epoch) return;
    this.#epoch++;
    if (stale) this.#ack = stale.kept;
    this.#known = new RecentFingerprints();
    for (const id of this.#held.keys()) this.#tainted.add(id);
    this.#maybeOrphans = true;
    this.#options.log.warning(
      `${forgetReason(stale?.why, this.#leaseMs)}: it forgets which links it knew were queued, ` +
        `and gives back the ${this.#tainted.size} requests it holds instead of finishing them`,
    );
    this.#onForget?.();
  }

  /** `handler` is called each time this store forgets what it knew was queued (see {@link Frontier.onForget}). */
  onForget(handler: () => void): void {
    this.#onForget = handler;
  }

  /**
   * Takes up to `max` requests, passing over the hosts `skipHost` says the crawl has enough of (among those this
   * process holds requests for: no other host can be one). When pages are waiting to be finished (an earlier FINISH
   * is on its way), the lease waits and goes with them in one call, after them: the links they yield can be handed
   * out at once, and the process makes one round trip instead of two. Otherwise it goes at once, as a FINISH of no
   * pages. Entries that are not usable requests are released as bad and the lease asks again at once: fewer than
   * `max` means the queue had no more for this process, never that it held junk.
   */
  async lease(max: number, options: LeaseOptions = {}): Promise<Lease[]> {
    const leases: Lease[] = [];
    this.#leasesInFlight++;
    try {
      // After a reply that was all junk, bigger bites: a queue with a long run of junk is crossed in a few calls.
      let bite = 1;
      while (leases.length < max) {
        const asked = Math.min((max - leases.length) * bite, Math.max(max - leases.length, MAX_BITE));
        const skip = this.#hostsToSkip(options.skipHost);
        const delays = this.#delaysToShare(options.crawlDelay);
        let reply: unknown[];
        if (leases.length === 0 && this.#finishing.length > 0 && this.#leaseWithFinish === undefined) {
          reply = await new Promise<unknown[]>((resolve, reject) =>
            this.#leaseWithFinish = { max: asked, skip, delays, resolve, reject }
          );
        } else {
          const releases = this.#releasing;
          this.#releasing = [];
          try {
            reply = this.#answered(
              await this.#call("nwFinish", () => [
                ...this.#leaseArgs(asked, skip, delays),
                ...releases.flatMap(releasePair),
              ]) as unknown[],
            ).slice(releases.length);
          } catch (error) {
            this.#releasing.unshift(...releases);
            throw error;
          }
          for (const id of releases) this.#held.delete(id);
        }
        const before = leases.length;
        const got = this.#takeReply(reply, leases);
        if (got < asked) break;
        if (leases.length === before) bite = Math.min(bite * 4, MAX_BITE);
      }
      if (this.#releasing.length > 0) await this.#sendReleases();
      // A big bite may bring more usable requests than asked for: the rest go back, to the front, where they were.
      if (leases.length > max) {
        const extra = leases.splice(max);
        await this.giveBack(extra);
        this.#stats.leased -= extra.length;
      }
    } finally {
      this.#leasesInFlight--;
    }
    return leases;
  }

  /** Releases the entries found bad, now (after a lease, so that what it dropped is not held by anyone). */
  async #sendReleases(): Promise<void> {
    const releases = this.#releasing;
    this.#releasing = [];
    try {
      this.#answered(
        await this.#call("nwFinish", () => [...this.#leaseArgs(0), ...releases.flatMap(releasePair)]) as unknown[],
      );
    } catch (error) {
      this.#releasing.unshift(...releases);
      throw error;
    }
    for (const id of releases) this.#held.delete(id);
  }

  /**
   * A FINISH call's first arguments: this process, how many to lease, the entry size bound, crawl-wide per_domain and
   * min_delay (0 and 0 when each process keeps its own), the hosts to skip, and host delays to share.
   */
  #leaseArgs(max: number, skip: readonly string[] = [], delays: readonly string[] = []): ScriptArg[] {
    const polite = this.#options.politeness;
    const perDomain = polite?.perDomain ?? 0;
    const minDelayMs = Math.round((polite?.minDelay ?? 0) * 1000);
    return [
      this.#pid,
      this.#ack,
      max,
      this.#limits.maxBytes,
      perDomain,
      minDelayMs,
      skip.length,
      ...skip,
      ...this.#fullHosts(skip),
      delays.length / 2,
      ...delays,
      polite?.hosts?.length ?? 0,
      ...(polite?.hosts ?? []).flatMap((limit) => [
        limit.pattern,
        limit.perDomain,
        Math.round(limit.minDelay * 1000),
      ]),
    ];
  }

  /**
   * The hosts (other than those in `skip`) this process holds at least per_domain requests of, with their count first:
   * a lease takes from them last.
   */
  #fullHosts(skip: readonly string[]): string[] {
    const perDomain = this.#options.perDomain;
    const out: string[] = [];
    if (perDomain !== undefined) {
      const of = typeof perDomain === "number" ? () => perDomain : perDomain;
      for (const [host, count] of this.#heldHosts) if (count >= of(host) && !skip.includes(host)) out.push(host);
    }
    return [String(out.length), ...out];
  }

  /**
   * With crawl-wide politeness, the Crawl-delays (host, ms, ...) that this process has found and
   * not shared yet: only the process that fetched a host's robots.txt knows its Crawl-delay.
   */
  #delaysToShare(crawlDelay: LeaseOptions["crawlDelay"]): string[] {
    const polite = this.#options.politeness;
    if (!polite || !crawlDelay) return [];
    const out: string[] = [];
    for (const host of this.#heldHosts.keys()) {
      const ms = Math.round(crawlDelay(host) * 1000);
      // Any delay at all: a host's own min_delay (its `hosts` entry) may be below the crawl's, and the script takes
      // the larger of the two.
      if (ms <= 0 || this.#sharedDelays.get(host) === ms) continue;
      this.#sharedDelays.set(host, ms);
      out.push(host, String(ms));
    }
    return out;
  }

  /** The hosts this process holds requests for that `skipHost` says a lease should pass over. */
  #hostsToSkip(skipHost: LeaseOptions["skipHost"]): string[] {
    if (!skipHost) return [];
    return [...this.#heldHosts.keys()].filter((host) => skipHost(host));
  }

  /**
   * A FINISH answer with the keys it set aside counted and this process's new mark noted: each page's result, then
   * the ids and entries taken, then the number of entries too big (what #takeReply reads).
   */
  #answered(answer: unknown[]): unknown[] {
    const [badKeys, oversized, mark] = answer.slice(-3).map(Number);
    this.#acknowledged(mark);
    if (badKeys > 0) this.#bad(`${badKeys} queue key(s) that were not of the queue's types, set aside`, badKeys);
    return [...answer.slice(0, -3), oversized];
  }

  /**
   * Reads the `take` part of a FINISH answer (id, entry, ..., entries too big): usable requests go to `leases`, the
   * rest are counted and queued for release. Returns how many entries the server took.
   */
  #takeReply(reply: unknown[], leases: Lease[]): number {
    const entries = reply.length - 1;
    const oversized = Number(reply[entries]);
    if (oversized > 0) this.#bad(`${oversized} entries over ${this.#limits.maxBytes} bytes`, oversized);
    for (let i = 0; i + 1 < entries; i += 2) this.#held.set(String(reply[i]), "");
    for (let i = 0; i + 1 < entries; i += 2) {
      const id = String(reply[i]);
      const request = this.#usable(String(reply[i + 1]));
      if (request) {
        leases.push({ id, request });
        this.#holdHost(id, request.host);
        this.#known.add(filterFingerprint(request));
      } // Gone for the whole crawl: released without queueing anything, never handed to the crawl.
      else this.#releasing.push(id);
    }
    // Every entry taken counts, the ones dropped as bad included: leased is what this process took from the queue.
    this.#stats.leased += entries / 2 + oversized;
    return entries / 2 + oversized;
  }

  #holdHost(id: string, host: string): void {
    this.#held.set(id, host);
    this.#heldHosts.set(host, (this.#heldHosts.get(host) ?? 0) + 1);
  }

  /** Forgets a lease id; its host is held one request less. */
  #release(id: string): void {
    const host = this.#held.get(id);
    this.#held.delete(id);
    this.#tainted.delete(id);
    if (!host) return;
    const count = (this.#heldHosts.get(host) ?? 1) - 1;
    if (count > 0) this.#heldHosts.set(host, count);
    else this.#heldHosts.delete(host);
  }

  /** The request an entry holds, or undefined (counted and logged) when this process must not use it. */
  #usable(encoded: string): Request | undefined {
    try {
      return decodeRequest(this.#options.spider, encoded, this.#limits);
    } catch (error) {
      this.#bad(`${(error as Error).message}: ${encoded.slice(0, 120)}`);
      return undefined;
    }
  }

  #bad(what: string, count = 1): void {
    this.#badEntries.report(what, count);
  }

  /**
   * Finishes a page: its lease released and its links queued in one step. Pages that finish while an earlier
   * FINISH is on its way wait for it and go together in the next call, so a busy process makes fewer round trips
   * and a quiet one waits for nothing.
   */
  finish(lease: Lease, yielded: readonly Request[]): Promise<void> {
    // A page held when this process forgot goes back rather than be finished; but its callback may have run since,
    // and the crawl noted its links as queued then. The crawl forgets them again, before another page can drop them.
    if (this.#tainted.has(lease.id) && yielded.length > 0) this.#onForget?.();
    const lines = this.#lines(yielded);
    return new Promise<void>((resolve, reject) => {
      this.#finishing.push({ lease, lines, resolve, reject });
      void this.#sendFinishes();
    });
  }

  async #sendFinishes(): Promise<void> {
    if (this.#finishInFlight) return;
    this.#finishInFlight = true;
    try {
      while (this.#finishing.length > 0) {
        const batch = this.#finishing.splice(0, MAX_FINISH_BATCH);
        // Pages held when this process forgot what it knew was queued: their links may have been dropped as known
        // (here, in the crawl or in its workers), so finishing them could lose links. They go back to be fetched again.
        const tainted = batch.filter((one) => this.#tainted.has(one.lease.id));
        const pages = tainted.length > 0 ? batch.filter((one) => !this.#tainted.has(one.lease.id)) : batch;
        if (tainted.length > 0) await this.#giveBackTainted(tainted);
        if (pages.length === 0 && this.#leaseWithFinish === undefined) continue;
        const lease = this.#leaseWithFinish;
        this.#leaseWithFinish = undefined;
        const releases = this.#releasing;
        this.#releasing = [];
        let results: unknown[];
        try {
          results = this.#answered(
            await this.#call("nwFinish", () => [
              ...this.#leaseArgs(lease?.max ?? 0, lease?.skip, lease?.delays),
              ...pages.flatMap((one) => [one.lease.id, (one.payload = this.#payloadOf(one.lines, one.payload)).text]),
              ...releases.flatMap(releasePair),
            ], true) as unknown[],
          );
        } catch (error) {
          this.#releasing.unshift(...releases);
          if (error instanceof StaleCall) {
            // Nothing was done: the pages, now tainted, go back at the next turn; the lease asks again later.
            this.#finishing.unshift(...pages);
            lease?.resolve([0]);
            continue;
          }
          for (const one of pages) one.reject(error);
          lease?.reject(error);
          continue;
        }
        for (const id of releases) this.#held.delete(id);
        lease?.resolve(results.slice(pages.length + releases.length));
        let gone = 0;
        pages.forEach((one, i) => {
          const added = Number(results[i]);
          this.#release(one.lease.id);
          if (added > 0) this.#stats.pushed += added;
          if (added < 0) gone++;
          one.resolve();
        });
        // A lease gone while its page was fetched: taken back (whoever fetches the page again queues its links), or
        // removed by hand. Links this process dropped as known may have been among that page's, so it forgets.
        if (gone > 0) this.#forget({ kept: this.#ack, why: `released:${gone}` }, this.#epoch);
      }
    } finally {
      this.#finishInFlight = false;
    }
  }

  /** Gives back pages held when this process forgot (see #sendFinishes), and settles their finish. */
  async #giveBackTainted(pages: PendingFinish[]): Promise<void> {
    try {
      await this.giveBack(pages.map((one) => one.lease));
      for (const one of pages) one.resolve();
    } catch (error) {
      for (const one of pages) one.reject(error);
    }
  }

  async giveBack(leases: readonly Lease[]): Promise<void> {
    if (leases.length === 0) return;
    const ids = leases.map((lease) => lease.id);
    const [, bad] = (await this.#call("nwGiveBack", () => [this.#pid, ...ids]) as unknown[]).map(Number);
    for (const lease of leases) this.#release(lease.id);
    if (bad > 0) this.#bad(`${bad} held entries that were not in the queue's shape`, bad);
  }

  async ended(): Promise<boolean> {
    const idle = this.#options.idleSeconds;
    const idleMs = Number(await this.#call("nwIdle", () => []));
    return idle !== null && idleMs >= idle * 1000;
  }

  async status(): Promise<FrontierStatus> {
    return readStatus(await this.#call("nwStatus", () => []) as unknown[]);
  }

  /** pushed, leased, leases_reclaimed and queue_bad; `dropped.unqueueable` once any were. */
  stats(): FrontierStats {
    const stats: FrontierStats = { ...this.#stats, queue_bad: this.#badEntries.total };
    if (this.#droppedUnqueueable > 0) stats["dropped.unqueueable"] = this.#droppedUnqueueable;
    return stats;
  }

  /** Leaves the crawl: anything still held goes back, and this process is no longer counted. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#clock.clearTimeout(this.#heartbeatTimer);
    try {
      if (!this.#fatal) {
        // Entries found bad are released first: leaving would put them back, for the next process to drop again.
        if (this.#releasing.length > 0) {
          await this.#connection.script("nwFinish", [
            this.#prefix,
            ...this.#leaseArgs(0),
            ...this.#releasing.flatMap(releasePair),
          ]);
          this.#releasing = [];
        }
        await this.#connection.script("nwLeave", [this.#prefix, this.#pid]);
      }
      this.#badEntries.summarise();
    } catch (error) {
      this.#options.log.warning(`could not leave the queue cleanly: ${describe(error)}`);
    } finally {
      this.#closed = true;
      this.#connection.close();
    }
  }
}
