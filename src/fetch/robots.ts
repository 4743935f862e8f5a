/**
 * robots.txt (C9): fetched once per origin, on first need, and kept while the origin is in use. Requests to one
 * origin that ask at the same time share the one fetch. Its rules are read and matched by robots_rules.ts (RFC 9309,
 * held to Google's suite). A 4xx (no robots.txt) allows everything. A 5xx or a network failure allows everything
 * too, as Scrapy does, unless `errors` is "disallow", RFC 9309's rule (2.3.1.3: an unreachable robots.txt means
 * complete disallow); either way it is remembered ({@link RobotsTxt.state}) so the engine can report the site.
 */
import type { HrefParts } from "../spider/href_parts.ts";
import { RobotsRules } from "./robots_rules.ts";

/** Fetches a URL's text for robots.txt; null when it could not be fetched at all. */
export type FetchText = (url: string) => Promise<{ status: number; text: string } | null>;

/** What the answer for one URL is. */
export interface RobotsVerdict {
  allowed: boolean;
  /** Seconds between two requests, from Crawl-delay for our user agent (or `*`), when robots.txt gives one. */
  crawlDelay?: number;
}

/** How an origin's robots.txt turned out. */
export type RobotsState =
  | { kind: "parsed"; status: number }
  | { kind: "missing"; status: number }
  | { kind: "server_error"; status: number }
  | { kind: "unreachable" };

interface Entry {
  state: RobotsState;
  /** The robots.txt itself, when it was read (a 2xx); parsed again from here once its parse has been dropped. */
  text?: string;
  /** The group this robots.txt is read with: our product token's when it has one, else "*", else none. */
  agent: string | undefined;
  /** Epoch ms of the last check on the origin. */
  lastUsed: number;
}

/**
 * How long an origin's robots.txt is kept unused. Past it, the next request to the origin fetches it again: after
 * an hour away, the site may well have changed it (RFC 9309 asks that a copy be used for 24 hours at most).
 */
export const ROBOTS_IDLE_MS = 60 * 60 * 1000;
/**
 * Origins whose parsed robots.txt is kept, the most recently used (Crawlee keeps the last 1,000 too). A parse
 * (its groups and their rules) takes a few times the text; the text of the others is kept, and parsed
 * again when the origin comes back, which gives the same rules without a fetch.
 */
export const PARSED_KEPT = 1000;
/** The most robots.txt text kept, in UTF-16 units; past it the least recently used origins are dropped entirely. */
export const TEXT_KEPT = 16 * 1024 * 1024;
/**
 * What an entry costs besides its text, in the units of TEXT_KEPT (a robots.txt is ASCII as a rule, a byte a
 * character): its origin, object and map slot took 209 bytes of heap an origin over 20,000 origins (Deno 2.9), so a
 * crawl of sites with tiny robots.txt files keeps about 70,000 of them, some 16 MB, rather than 160,000 at 100.
 */
const ENTRY_COST = 200;

/**
 * The product tokens a user agent may be known by in robots.txt, most specific first: "netweir" for
 * "netweir/0.4.0"; for "Mozilla/5.0 (compatible; MyBot/1.2; +https://...)", "mybot" then the other tokens.
 */
export function productTokens(userAgent: string): string[] {
  const tokens = (text: string) =>
    [...text.matchAll(/(?:^|[\s;,])([A-Za-z][\w.-]*)\/[\w.]+/g)].map((m) => m[1].toLowerCase());
  const inside = [...userAgent.matchAll(/\(([^)]*)\)/g)].flatMap((m) => tokens(m[1]));
  const outside = tokens(userAgent.replace(/\([^)]*\)/g, " ")).filter((t) => t !== "mozilla");
  const bare = /^[A-Za-z][\w.-]*$/.test(userAgent.trim()) ? [userAgent.trim().toLowerCase()] : [];
  return [...new Set([...inside, ...outside, ...bare])];
}

/** What a robots.txt that answers 5xx or cannot be fetched means: everything allowed (Scrapy), or nothing (RFC 9309). */
export type RobotsErrors = "allow" | "disallow";

/** One crawl's robots.txt cache. */
export class RobotsTxt {
  readonly #fetchText: FetchText;
  readonly #tokens: string[];
  readonly #clock: () => number;
  /** Fetches under way, shared by every check on the origin meanwhile. */
  readonly #loading = new Map<string, Promise<Entry>>();
  /** Origins whose robots.txt is known, least recently used first. */
  readonly #known = new Map<string, Entry>();
  /** Parses kept, least recently used first, at most PARSED_KEPT. */
  readonly #parsed = new Map<string, RobotsRules>();
  /** What #known costs, in the units of TEXT_KEPT. */
  #kept = 0;
  /** One object for each outcome: an origin's entry points to it rather than to a copy of its own. */
  readonly #states = new Map<string, RobotsState>();

  readonly #errors: RobotsErrors;

  /** `clock` gives epoch ms (tests pass their own); `errors` says what a 5xx or a failed fetch means. */
  constructor(fetchText: FetchText, userAgent: string, clock: () => number = Date.now, errors: RobotsErrors = "allow") {
    this.#fetchText = fetchText;
    this.#tokens = productTokens(userAgent);
    this.#clock = clock;
    this.#errors = errors;
  }

  /** How many origins' robots.txt are kept, and how many of them parsed (for tests and benches). */
  get size(): { known: number; parsed: number } {
    return { known: this.#known.size, parsed: this.#parsed.size };
  }

  /**
   * Whether our user agent may fetch `url`, and the origin's Crawl-delay. Non-http(s) URLs are always allowed.
   * `parts` are the URL's when the caller has them (a request's, see href_parts.ts), to spare a parse.
   */
  async check(url: string | URL, parts?: HrefParts): Promise<RobotsVerdict> {
    const parsed: HrefParts | URL = parts ?? (typeof url === "string" ? new URL(url) : url);
    const origin = parsed.origin;
    if (!origin.startsWith("http://") && !origin.startsWith("https://")) return { allowed: true };
    const entry = await this.#entry(origin);
    const robots = this.#robots(origin, entry);
    if (!robots) {
      const troubled = entry.state.kind === "server_error" || entry.state.kind === "unreachable";
      return { allowed: !(troubled && this.#errors === "disallow") };
    }
    const allowed = robots.isAllowed(entry.agent, parsed.pathname + parsed.search);
    const crawlDelay = robots.crawlDelay(entry.agent);
    return typeof crawlDelay === "number" && crawlDelay >= 0 ? { allowed, crawlDelay } : { allowed };
  }

  /** The Sitemap: URLs of an origin's robots.txt (an origin or any URL on it); empty until it has been fetched. */
  sitemaps(origin: string): string[] {
    const key = new URL(origin).origin;
    const entry = this.#known.get(key);
    return (entry && this.#robots(key, entry)?.sitemaps()) ?? [];
  }

  /**
   * How an origin's robots.txt turned out, or undefined when it has not been fetched (yet). `parts` are the URL's
   * when the caller has them (see href_parts.ts): the crawl asks for every request waiting on a busy host, each
   * time it looks for one to start, and a URL parse each time was a cost per page of a broad crawl.
   */
  state(origin: string, parts?: HrefParts): RobotsState | undefined {
    return this.#known.get((parts ?? new URL(origin)).origin)?.state;
  }

  /** The origin's entry, now when it is known, else once its fetch (shared by every check meanwhile) is done. */
  #entry(origin: string): Entry | Promise<Entry> {
    const now = this.#clock();
    this.#forget(now);
    const known = this.#known.get(origin);
    if (known) {
      // Moved to the end: the map stays in order of last use.
      this.#known.delete(origin);
      this.#known.set(origin, known);
      known.lastUsed = now;
      return known;
    }
    let loading = this.#loading.get(origin);
    if (!loading) {
      loading = this.#load(origin).then((loaded) => {
        this.#loading.delete(origin);
        loaded.lastUsed = this.#clock();
        this.#known.set(origin, loaded);
        this.#kept += ENTRY_COST + (loaded.text?.length ?? 0);
        this.#forget(loaded.lastUsed);
        return loaded;
      });
      this.#loading.set(origin, loading);
    }
    return loading;
  }

  /** Drops the origins unused for ROBOTS_IDLE_MS, and the least recently used while the texts are over TEXT_KEPT. */
  #forget(now: number): void {
    for (const [origin, entry] of this.#known) {
      if (entry.lastUsed > now - ROBOTS_IDLE_MS && this.#kept <= TEXT_KEPT) break;
      this.#known.delete(origin);
      this.#parsed.delete(origin);
      this.#kept -= ENTRY_COST + (entry.text?.length ?? 0);
    }
  }

  /** The origin's rules, parsed again from the kept text when the parse was dropped. */
  #robots(origin: string, entry: Entry): RobotsRules | undefined {
    if (entry.text === undefined) return undefined;
    let robots = this.#parsed.get(origin);
    if (robots) this.#parsed.delete(origin);
    else robots = new RobotsRules(entry.text);
    this.#keepParsed(origin, robots);
    return robots;
  }

  /** Keeps an origin's rules as the most recently used, dropping the least recently used past PARSED_KEPT. */
  #keepParsed(origin: string, robots: RobotsRules): void {
    this.#parsed.set(origin, robots);
    if (this.#parsed.size > PARSED_KEPT) this.#parsed.delete(this.#parsed.keys().next().value!);
  }

  #state(kind: RobotsState["kind"], status?: number): RobotsState {
    const key = `${kind} ${status}`;
    const known = this.#states.get(key);
    if (known !== undefined) return known;
    const state: RobotsState = Object.freeze(kind === "unreachable" ? { kind } : { kind, status: status! });
    this.#states.set(key, state);
    return state;
  }

  async #load(origin: string): Promise<Entry> {
    const url = `${origin}/robots.txt`;
    let answer: { status: number; text: string } | null;
    try {
      answer = await this.#fetchText(url);
    } catch {
      answer = null;
    }
    if (!answer) return { state: this.#state("unreachable"), agent: "*", lastUsed: 0 };
    const { status, text } = answer;
    if (status >= 500) return { state: this.#state("server_error", status), agent: "*", lastUsed: 0 };
    if (status < 200 || status >= 300) return { state: this.#state("missing", status), agent: "*", lastUsed: 0 };
    const rules = new RobotsRules(text);
    // Parsed here to find our group; kept, so the first check does not parse it again.
    this.#keepParsed(origin, rules);
    return { state: this.#state("parsed", status), text, agent: rules.agentFor(this.#tokens), lastUsed: 0 };
  }
}
