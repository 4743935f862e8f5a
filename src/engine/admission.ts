/**
 * Which requests a process lets through (C7, C11): offsite, too deep, trap, over max_pages_per_domain. Requests
 * a page yields are checked before they go to the queue; requests taken from the queue are checked again (a URL
 * pushed from outside never went through the first check). A refused request is gone for the whole crawl.
 */
import type { Request } from "../spider/request.ts";
import { TrapDetector } from "./traps.ts";
import { domainMatcher } from "../spider/host_in_domain.ts";
import { hrefParts } from "../spider/href_parts.ts";
import { RecentKeys } from "./recent_keys.ts";
import { retryTimes } from "../fetch/retry.ts";

export interface AdmissionSettings {
  maxDepth: number | null;
  trapDetection: boolean;
  maxUrlLength: number;
  maxPagesPerDomain: number | null;
}

/** A refusal: the stats key it is counted under and a detail for the debug log. */
export interface Refusal {
  reason: "scheme" | "offsite" | "depth" | "trap" | "max_pages_per_domain";
  detail: string;
}

/**
 * Whether a host is one of the allowed domains or a subdomain of one (an IP address only matches itself); an empty
 * list allows every host. A port on an allowed domain (`example.com:8080`) is ignored.
 */
export function hostAllowed(host: string, allowedDomains: readonly string[]): boolean {
  return allowedHosts(allowedDomains)(host);
}

/** {@link hostAllowed} for one list, written out once: the test every request a page yields goes through. */
export function allowedHosts(allowedDomains: readonly string[]): (host: string) => boolean {
  if (allowedDomains.length === 0) return () => true;
  return domainMatcher(allowedDomains.map(withoutPort));
}

/** `name:port` without the port; an IPv6 address (two colons or more) is left alone. */
function withoutPort(domain: string): string {
  return /^[^:]*:\d+$/.test(domain) ? domain.replace(/:\d+$/, "") : domain.replace(/^(\[.*\]):\d+$/, "$1");
}

export class Admission {
  readonly #settings: AdmissionSettings;
  readonly #allowed: (host: string) => boolean;
  readonly #traps: TrapDetector;
  readonly #takenPerHost = new Map<string, number>();
  #queued: RecentKeys;

  constructor(settings: AdmissionSettings, allowedDomains: readonly string[]) {
    this.#settings = settings;
    this.#allowed = allowedHosts(allowedDomains);
    this.#traps = new TrapDetector(settings.maxUrlLength);
    this.#queued = new RecentKeys(settings.maxDepth);
  }

  /** Whether a host is one of the spider's allowed domains (see {@link hostAllowed}). */
  hostAllowed(host: string): boolean {
    return this.#allowed(host);
  }

  /** Checks a request a page yielded, before it is queued. */
  checkYielded(request: Request): Refusal | undefined {
    // `page.follow("mailto:...")` gives a request, as in Scrapy; only http(s) is fetched.
    if (!request.url.startsWith("http:") && !request.url.startsWith("https:")) {
      return { reason: "scheme", detail: request.url.slice(0, request.url.indexOf(":") + 1) };
    }
    const host = request.host;
    if (!this.#allowed(host)) return { reason: "offsite", detail: host };
    const { maxDepth, trapDetection } = this.#settings;
    if (maxDepth !== null && request.depth > maxDepth) return { reason: "depth", detail: String(request.depth) };
    if (trapDetection) {
      const trap = this.#traps.check(request.url, hrefParts(request.url));
      if (trap) return { reason: "trap", detail: trap };
    }
    return undefined;
  }

  /**
   * Whether this process queued the same request lately, so that the frontier would drop it: a hash lookup, asked
   * before anything else is done with a yielded request. Only when the request is within max_depth: one that is
   * not is refused and counted as such, as it was the first time round.
   */
  queuedLately(request: Request): boolean {
    return this.#queued.has(request, request.depth);
  }

  /**
   * Notes a yielded request that passed every check and goes to the frontier (see {@link queuedLately}); gives its
   * key, or undefined for a request the frontier does not filter by URL alone.
   */
  noteQueued(request: Request): string | undefined {
    return this.#queued.note(request);
  }

  /** Forgets what was queued lately: the frontier says some of it may not be queued after all (Frontier.onForget). */
  forgetQueued(): void {
    this.#queued = new RecentKeys(this.#settings.maxDepth);
  }

  /** The depth a request may have at most, or null for none (max_depth). */
  get maxDepth(): number | null {
    return this.#settings.maxDepth;
  }

  /**
   * Checks a request taken from the queue, and counts it against its host. A retry (meta `retry_times`) was counted
   * when it was first taken: it is the same page, and counting it again would make a retried URL look like a trap
   * and take a second share of max_pages_per_domain.
   */
  checkLeased(request: Request): Refusal | undefined {
    const refusal = this.checkYielded(request);
    if (refusal) return refusal;
    if (retryTimes(request) > 0) return undefined;
    if (this.#settings.trapDetection) {
      const trap = this.#traps.countVariant(request.url, hrefParts(request.url));
      if (trap) return { reason: "trap", detail: trap };
    }
    const limit = this.#settings.maxPagesPerDomain;
    if (limit !== null) {
      const host = request.host;
      const taken = (this.#takenPerHost.get(host) ?? 0) + 1;
      if (taken > limit) return { reason: "max_pages_per_domain", detail: host };
      this.#takenPerHost.set(host, taken);
    }
    return undefined;
  }
}
