/**
 * Which requests a process lets through (C7, C11): offsite, too deep, trap, over max_pages_per_domain. Requests
 * a page yields are checked before they go to the queue; requests taken from the queue are checked again (a URL
 * pushed from outside never went through the first check). A refused request is gone for the whole crawl.
 */
import type { Request } from "../spider/request.ts";
import { TrapDetector } from "./traps.ts";
import { hostInDomains } from "../spider/host_in_domain.ts";

export interface AdmissionSettings {
  maxDepth: number | null;
  trapDetection: boolean;
  maxUrlLength: number;
  maxPagesPerDomain: number | null;
}

/** A refusal: the stats key it is counted under and a detail for the debug log. */
export interface Refusal {
  reason: "offsite" | "depth" | "trap" | "max_pages_per_domain";
  detail: string;
}

/**
 * Whether a host is one of the allowed domains or a subdomain of one (an IP address only matches itself); an empty
 * list allows every host. A port on an allowed domain (`example.com:8080`) is ignored.
 */
export function hostAllowed(host: string, allowedDomains: readonly string[]): boolean {
  if (allowedDomains.length === 0) return true;
  return hostInDomains(host, allowedDomains.map(withoutPort));
}

/** `name:port` without the port; an IPv6 address (two colons or more) is left alone. */
function withoutPort(domain: string): string {
  return /^[^:]*:\d+$/.test(domain) ? domain.replace(/:\d+$/, "") : domain.replace(/^(\[.*\]):\d+$/, "$1");
}

export class Admission {
  readonly #settings: AdmissionSettings;
  readonly #allowedDomains: readonly string[];
  readonly #traps: TrapDetector;
  readonly #takenPerHost = new Map<string, number>();

  constructor(settings: AdmissionSettings, allowedDomains: readonly string[]) {
    this.#settings = settings;
    this.#allowedDomains = allowedDomains;
    this.#traps = new TrapDetector(settings.maxUrlLength);
  }

  /** Checks a request a page yielded, before it is queued. */
  checkYielded(request: Request): Refusal | undefined {
    const host = request.host;
    if (!hostAllowed(host, this.#allowedDomains)) return { reason: "offsite", detail: host };
    const { maxDepth, trapDetection } = this.#settings;
    if (maxDepth !== null && request.depth > maxDepth) return { reason: "depth", detail: String(request.depth) };
    if (trapDetection) {
      const trap = this.#traps.check(request.url);
      if (trap) return { reason: "trap", detail: trap };
    }
    return undefined;
  }

  /** Checks a request taken from the queue, and counts it against its host. */
  checkLeased(request: Request): Refusal | undefined {
    const refusal = this.checkYielded(request);
    if (refusal) return refusal;
    if (this.#settings.trapDetection) {
      const trap = this.#traps.countVariant(request.url);
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
