/**
 * Choosing a proxy from the `proxies` list by `proxyRotation`: `per_request` goes round the list one request after
 * another; `per_domain` gives each host one proxy, handed out round the list as hosts are first seen (so a handful of
 * hosts spread over the proxies instead of piling onto one by hash collision), and keeps it. Nothing here is shared
 * between two downloaders.
 */

/** A rotation over one crawl's proxy list. */
export class ProxyRotation {
  readonly #proxies: readonly string[];
  readonly #perDomain: boolean;
  #next = 0;
  readonly #byHost = new Map<string, number>();

  /** `rotation` null with a non-empty list means per_request. */
  constructor(proxies: readonly string[], rotation: string | null) {
    if (rotation !== null && rotation !== "per_request" && rotation !== "per_domain") {
      throw new RangeError(`proxyRotation must be per_request or per_domain, not ${JSON.stringify(rotation)}`);
    }
    this.#proxies = [...proxies];
    this.#perDomain = rotation === "per_domain";
  }

  /** The proxy for the next request to `host`, or undefined when there are no proxies. */
  choose(host: string): string | undefined {
    if (this.#proxies.length === 0) return undefined;
    if (!this.#perDomain) return this.#proxies[this.#take()];
    let index = this.#byHost.get(host);
    if (index === undefined) {
      index = this.#take();
      this.#byHost.set(host, index);
    }
    return this.#proxies[index];
  }

  /**
   * A proxy other than those in `exclude`, to try a request to `host` again through, or undefined when every
   * proxy is excluded. Per domain, the host moves to the new proxy for good (its old one is evidently blocked).
   */
  next(host: string, exclude: Iterable<string>): string | undefined {
    const excluded = new Set(exclude);
    const n = this.#proxies.length;
    const start = this.#perDomain ? (this.#byHost.get(host) ?? -1) + 1 : this.#next;
    for (let step = 0; step < n; step++) {
      const index = (start + step) % n;
      if (excluded.has(this.#proxies[index])) continue;
      if (this.#perDomain) this.#byHost.set(host, index);
      else this.#next = (index + 1) % n;
      return this.#proxies[index];
    }
    return undefined;
  }

  #take(): number {
    const index = this.#next;
    this.#next = (this.#next + 1) % this.#proxies.length;
    return index;
  }
}
