/**
 * Sessions (the `sessions` setting): a pool of N identities, each with its own cookie jar, proxy, user agent, headers
 * and (for rendered requests) browser context. A request takes one, by meta `session` when it names a live one, else
 * the next in turn; the requests its page yields keep it. A session is retired when a response looks blocked, when its
 * error score reaches the maximum, when it has been used its maximum number of times, or when a callback says so; a
 * new one takes its place at the next request. Shaped after Crawlee's SessionPool (max usage count, error score, 0.5
 * off the score for each good page), as docs/design/sessions.md says, with where and why it differs.
 *
 * The pool is one crawl's: two crawls in one process share nothing. With a shared queue each process has its own.
 */
import { CookieJar, type SerializedCookieJar } from "tough-cookie";
import { CrawlCookieStore } from "../fetch/cookie_store.ts";
import type { FetchSession } from "../fetch/fetch_session.ts";
import type { Session } from "../spider/session.ts";
import type { Logger } from "../spider/types.ts";

/** Why a session was retired: counted as `sessions.retired_<reason>`. */
export type RetireReason = "blocked" | "errors" | "max_usage" | "callback";

/** What the pool is made from: the crawl's settings and where it counts. */
export interface SessionPoolOptions {
  /** How many sessions are live at once (the `sessions` setting). */
  size: number;
  /** Requests a session is taken for before it is retired (`sessionMaxUsage`). */
  maxUsage: number;
  /** The error score at which a session is retired (`sessionMaxErrorScore`). */
  maxErrorScore: number;
  /** User agents handed to new sessions in turn (`sessionUserAgents`); empty: the crawl's. */
  userAgents: readonly string[];
  /** The crawl's proxies, handed to new sessions in turn; empty: none. */
  proxies: readonly string[];
  /** Whether sessions keep cookies (the `cookies` setting). */
  cookies: boolean;
  stats: { inc(name: string, by?: number): void };
  log: Logger;
}

/** One session as a checkpoint keeps it. */
export interface SavedSession {
  id: string;
  userAgent: string | null;
  proxy?: string;
  headers: Record<string, string>;
  usageCount: number;
  errorScore: number;
  cookies?: SerializedCookieJar;
}

/** The pool as a checkpoint keeps it: the live sessions, how many were ever made, the names retired. */
export interface SessionPoolState {
  created: number;
  retired: string[];
  sessions: SavedSession[];
}

/** How much a good page takes off a session's error score (Crawlee's errorScoreDecrement). */
const SCORE_DECREMENT = 0.5;

/** A live session: what the downloader fetches with and what a callback sees as `page.session`. */
export class CrawlSession implements Session, FetchSession {
  readonly id: string;
  readonly userAgent: string | null;
  readonly proxy: string | undefined;
  readonly cookieStore: CrawlCookieStore;
  readonly jar: CookieJar | undefined;
  readonly #headers: Record<string, string>;
  readonly #pool: SessionPool;
  #usageCount: number;
  #errorScore: number;
  #retired = false;

  constructor(pool: SessionPool, saved: SavedSession, cookies: boolean) {
    this.#pool = pool;
    this.id = saved.id;
    this.userAgent = saved.userAgent;
    this.proxy = saved.proxy;
    this.#headers = { ...saved.headers };
    this.#usageCount = saved.usageCount;
    this.#errorScore = saved.errorScore;
    this.cookieStore = new CrawlCookieStore();
    if (!cookies) this.jar = undefined;
    else if (saved.cookies) this.jar = CookieJar.deserializeSync(saved.cookies, this.cookieStore);
    else this.jar = new CookieJar(this.cookieStore);
  }

  get usageCount(): number {
    return this.#usageCount;
  }

  get errorScore(): number {
    return this.#errorScore;
  }

  get retired(): boolean {
    return this.#retired;
  }

  get headers(): Readonly<Record<string, string>> {
    return this.#headers;
  }

  setHeader(name: string, value: string | null): void {
    if (typeof name !== "string" || name === "") throw new TypeError("session.setHeader needs a header name");
    if (value === null) delete this.#headers[name.toLowerCase()];
    else this.#headers[name.toLowerCase()] = String(value);
  }

  markBad(): void {
    this.#errorScore += 1;
    if (this.#errorScore >= this.#pool.maxErrorScore) this.#pool.retire(this, "errors");
  }

  markGood(): void {
    this.#errorScore = Math.max(0, this.#errorScore - SCORE_DECREMENT);
  }

  retire(): void {
    this.#pool.retire(this, "callback");
  }

  /** Counts one more request taken for it. */
  use(): void {
    this.#usageCount++;
  }

  /** Marks it retired; the pool does the rest. */
  markRetired(): void {
    this.#retired = true;
  }

  save(): SavedSession {
    const saved: SavedSession = {
      id: this.id,
      userAgent: this.userAgent,
      headers: { ...this.#headers },
      usageCount: this.#usageCount,
      errorScore: this.#errorScore,
    };
    if (this.proxy !== undefined) saved.proxy = this.proxy;
    const cookies = this.jar?.serializeSync();
    if (cookies) saved.cookies = cookies;
    return saved;
  }
}

/** The crawl's sessions. */
export class SessionPool {
  readonly #options: SessionPoolOptions;
  /** Live sessions, in the order they were made: the order requests take them in. */
  readonly #live = new Map<string, CrawlSession>();
  /** Names retired: a request that names one takes another session, never one reborn under that name. */
  readonly #retired = new Set<string>();
  readonly #onRetire: Array<(id: string) => void> = [];
  /** Sessions ever made: their numbers, and whose turn it is for a user agent and a proxy. */
  #created = 0;
  /** Where the next request without a session starts looking, round the live sessions. */
  #turn = 0;

  constructor(options: SessionPoolOptions, saved?: SessionPoolState) {
    this.#options = options;
    if (saved) {
      this.#created = saved.created;
      for (const id of saved.retired) this.#retired.add(id);
      // A run resumed with fewer `sessions` than the last keeps the first ones; the rest are dropped, not retired.
      for (const session of saved.sessions.slice(0, options.size)) {
        this.#live.set(session.id, new CrawlSession(this, session, options.cookies));
      }
    }
  }

  get maxErrorScore(): number {
    return this.#options.maxErrorScore;
  }

  /** The live sessions. */
  get live(): CrawlSession[] {
    return [...this.#live.values()];
  }

  /** Calls `handler` with the name of each session retired (the browser closes its context). */
  onRetire(handler: (id: string) => void): void {
    this.#onRetire.push(handler);
  }

  /**
   * A session for a request: the one meta `session` names, when it is live (or can be made under that name: the pool
   * has room and the name was never retired); else a new one while the pool is not full; else the next live one in
   * turn. A session at its maximum usage is retired rather than taken.
   */
  take(wanted: unknown): CrawlSession {
    let session = typeof wanted === "string" && wanted !== "" ? this.#named(wanted) : undefined;
    while (session === undefined) {
      session = this.#live.size < this.#options.size ? this.#make(undefined) : this.#next();
      if (session.usageCount >= this.#options.maxUsage) {
        this.retire(session, "max_usage");
        session = undefined;
      }
    }
    if (session.usageCount === 0) this.#options.stats.inc("sessions.used");
    session.use();
    return session;
  }

  /** Retires a session: no request takes it again; counted as sessions.retired and sessions.retired_<reason>. */
  retire(session: CrawlSession, reason: RetireReason): void {
    if (session.retired) return;
    session.markRetired();
    this.#live.delete(session.id);
    this.#retired.add(session.id);
    this.#options.stats.inc("sessions.retired");
    this.#options.stats.inc(`sessions.retired_${reason}`);
    this.#options.log.debug(`session ${session.id} retired (${reason}) after ${session.usageCount} request(s)`);
    for (const handler of this.#onRetire) handler(session.id);
  }

  /** What a checkpoint keeps. */
  save(): SessionPoolState {
    return {
      created: this.#created,
      retired: [...this.#retired],
      sessions: this.live.map((session) => session.save()),
    };
  }

  #named(id: string): CrawlSession | undefined {
    const live = this.#live.get(id);
    if (live !== undefined) return live.usageCount < this.#options.maxUsage ? live : undefined;
    if (this.#retired.has(id) || this.#live.size >= this.#options.size) return undefined;
    return this.#make(id);
  }

  #next(): CrawlSession {
    const live = this.live;
    return live[this.#turn++ % live.length];
  }

  #make(id: string | undefined): CrawlSession {
    const n = this.#created++;
    let name = id;
    for (let k = n + 1; name === undefined || this.#live.has(name) || this.#retired.has(name); k++) name = `s${k}`;
    const { userAgents, proxies } = this.#options;
    const saved: SavedSession = {
      id: name,
      userAgent: userAgents.length > 0 ? userAgents[n % userAgents.length] : null,
      headers: {},
      usageCount: 0,
      errorScore: 0,
    };
    if (proxies.length > 0) saved.proxy = proxies[n % proxies.length];
    const session = new CrawlSession(this, saved, this.#options.cookies);
    this.#live.set(name, session);
    return session;
  }
}

/** Whether a value read from a checkpoint is a pool's saved state (anything else is ignored, with a warning). */
export function isSessionPoolState(value: unknown): value is SessionPoolState {
  if (typeof value !== "object" || value === null) return false;
  const state = value as Partial<SessionPoolState>;
  return typeof state.created === "number" && Array.isArray(state.retired) && Array.isArray(state.sessions) &&
    state.sessions.every((session) => typeof session?.id === "string" && typeof session.usageCount === "number");
}
