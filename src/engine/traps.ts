/**
 * Crawler-trap detection (C7): URLs a site can generate without end. Each check is cheap and looks at one URL,
 * except the query-variation cap, which remembers how many query strings it has seen per path.
 */

const MAX_PATH_SEGMENTS = 24;
const MAX_SEGMENT_REPEATS = 3;
const MAX_QUERY_VARIANTS_PER_PATH = 2000;
const YEARS_AHEAD = 3;
const EARLIEST_YEAR = 1970;

/** Finds a group of path segments repeated three times in a row: /a/b/a/b/a/b. */
function hasRepeatingSegments(segments: string[]): boolean {
  for (let size = 1; size <= Math.floor(segments.length / MAX_SEGMENT_REPEATS); size++) {
    for (let start = 0; start + size * MAX_SEGMENT_REPEATS <= segments.length; start++) {
      let repeats = 1;
      for (let next = start + size; next + size <= segments.length; next += size) {
        let same = true;
        for (let i = 0; i < size && same; i++) same = segments[start + i] === segments[next + i];
        if (!same) break;
        if (++repeats >= MAX_SEGMENT_REPEATS) return true;
      }
    }
  }
  return false;
}

/** A calendar far in the future or past: year=2093, /2093/01/, date=1801-01-01. */
function hasFarDate(url: URL, currentYear: number): boolean {
  const candidates = [...url.pathname.split("/"), ...url.searchParams.values()];
  for (const value of candidates) {
    const match = /^(\d{4})(?:[-/.]\d{1,2}(?:[-/.]\d{1,2})?)?$/.exec(value);
    if (!match) continue;
    const year = Number(match[1]);
    if (year > currentYear + YEARS_AHEAD || (year < EARLIEST_YEAR && year >= 1000)) return true;
  }
  return false;
}

/** Detects trap URLs; one per crawl, as it remembers query variants per path. */
export class TrapDetector {
  readonly #variants = new Map<string, number>();
  readonly #currentYear = new Date().getFullYear();
  readonly #maxUrlLength: number;

  constructor(maxUrlLength: number) {
    this.#maxUrlLength = maxUrlLength;
  }

  /** Why the URL looks like a trap, or undefined. */
  check(url: string): string | undefined {
    if (url.length > this.#maxUrlLength) return "url too long";
    const parsed = new URL(url);
    const segments = parsed.pathname.split("/").filter((s) => s !== "");
    if (segments.length > MAX_PATH_SEGMENTS) return "path too deep";
    if (hasRepeatingSegments(segments)) return "repeating path segments";
    if (hasFarDate(parsed, this.#currentYear)) return "calendar out of range";
    return undefined;
  }

  /**
   * Counts the URL's query string against its path, for requests taken from the queue (each is taken once, after
   * the duplicate filter, so counting there counts distinct variants). Returns a reason past the cap.
   */
  countVariant(url: string): string | undefined {
    const parsed = new URL(url);
    if (parsed.search) {
      const key = parsed.host + parsed.pathname;
      const seen = (this.#variants.get(key) ?? 0) + 1;
      this.#variants.set(key, seen);
      if (seen > MAX_QUERY_VARIANTS_PER_PATH) return "endless query variants";
    }
    return undefined;
  }
}
