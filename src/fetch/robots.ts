/**
 * robots.txt (C9): fetched once per origin, on first need, and kept for the crawl. Requests to one origin that ask
 * at the same time share the one fetch. What cannot be read does not stop the crawl: a 4xx (no robots.txt) or a
 * network failure allows everything; a 5xx allows everything too, but is remembered ({@link RobotsTxt.state}) so
 * the engine can report the site as troubled.
 */
import robotsParserModule from "robots-parser";
import type { HrefParts } from "../spider/href_parts.ts";

/** The parts of robots-parser used here. Its bundled typings do not type-check, so they are stated here. */
interface ParsedRobots {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
  getSitemaps(): string[];
}
// The package is CommonJS exporting the parse function itself.
const robotsParser = robotsParserModule as unknown as (url: string, contents: string) => ParsedRobots;

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
  robots?: ParsedRobots;
  /** The user-agent group name this robots.txt is read with: our product token when it has a group, else "*". */
  agent: string;
}

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

/** The user-agent names a robots.txt has groups for, spelt as robots-parser keys them (lower case, no version). */
function groupNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const match of text.matchAll(/^[ \t]*user-agent[ \t]*:[ \t]*([^#\r\n]*)/gim)) {
    const name = match[1].trim().toLowerCase().split("/")[0].trim();
    if (name) names.add(name);
  }
  return names;
}

/** One crawl's robots.txt cache. */
export class RobotsTxt {
  readonly #fetchText: FetchText;
  readonly #tokens: string[];
  readonly #entries = new Map<string, Promise<Entry>>();
  readonly #settled = new Map<string, Entry>();

  constructor(fetchText: FetchText, userAgent: string) {
    this.#fetchText = fetchText;
    this.#tokens = productTokens(userAgent);
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
    if (!entry.robots) return { allowed: true };
    const href = parsed instanceof URL ? parsed.href : typeof url === "string" ? url : url.href;
    const allowed = entry.robots.isAllowed(href, entry.agent) ?? true;
    const crawlDelay = entry.robots.getCrawlDelay(entry.agent);
    return typeof crawlDelay === "number" && crawlDelay >= 0 ? { allowed, crawlDelay } : { allowed };
  }

  /** The Sitemap: URLs of an origin's robots.txt (an origin or any URL on it); empty until it has been fetched. */
  sitemaps(origin: string): string[] {
    return this.#settled.get(new URL(origin).origin)?.robots?.getSitemaps() ?? [];
  }

  /** How an origin's robots.txt turned out, or undefined when it has not been fetched (yet). */
  state(origin: string): RobotsState | undefined {
    return this.#settled.get(new URL(origin).origin)?.state;
  }

  #entry(origin: string): Promise<Entry> {
    let entry = this.#entries.get(origin);
    if (!entry) {
      entry = this.#load(origin).then((loaded) => {
        this.#settled.set(origin, loaded);
        return loaded;
      });
      this.#entries.set(origin, entry);
    }
    return entry;
  }

  async #load(origin: string): Promise<Entry> {
    const url = `${origin}/robots.txt`;
    let answer: { status: number; text: string } | null;
    try {
      answer = await this.#fetchText(url);
    } catch {
      answer = null;
    }
    if (!answer) return { state: { kind: "unreachable" }, agent: "*" };
    const { status, text } = answer;
    if (status >= 500) return { state: { kind: "server_error", status }, agent: "*" };
    if (status < 200 || status >= 300) return { state: { kind: "missing", status }, agent: "*" };
    const groups = groupNames(text);
    const agent = this.#tokens.find((token) => groups.has(token)) ?? "*";
    return { state: { kind: "parsed", status }, robots: robotsParser(url, text), agent };
  }
}
