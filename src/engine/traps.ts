/**
 * Crawler-trap detection (C7): URLs a site can generate without end. Each check is cheap and looks at one URL,
 * except the query-variation cap, which remembers how many query strings it has seen per path. Every request a page
 * yields is checked, so the checks take the URL's parts as the request has them (see href_parts.ts) rather than
 * parse it again, and skip what cannot match (no four digits in a row: no year).
 */
import type { HrefParts } from "../spider/href_parts.ts";

const MAX_PATH_SEGMENTS = 24;
const MAX_SEGMENT_REPEATS = 3;
const MAX_QUERY_VARIANTS_PER_PATH = 2000;
/**
 * Paths whose query variants are counted, the most recently counted: a broad crawl meets a query string on many
 * paths of many hosts, and a count for each, kept for the whole crawl, grew with every host. A trap's path is counted
 * on every variant it yields, so it stays among them until it reaches the cap; a path forgotten starts again from 0.
 */
export const COUNTED_PATHS = 100_000;
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

const FOUR_DIGITS = /\d{4}/;
const FOUR_DIGITS_OR_ESCAPE = /\d{4}|%/;

/**
 * A query's names and values, decoded as URLSearchParams decodes them. Without `%` or `+` nothing is decoded, and
 * splitting the string gives the same pairs without the cost of URLSearchParams and its iterator.
 */
function queryPairs(search: string): Iterable<[string, string]> {
  if (search.includes("%") || search.includes("+")) return new URLSearchParams(search);
  const pairs: Array<[string, string]> = [];
  for (const pair of search.slice(1).split("&")) {
    if (pair === "") continue;
    const at = pair.indexOf("=");
    pairs.push(at < 0 ? [pair, ""] : [pair.slice(0, at), pair.slice(at + 1)]);
  }
  return pairs;
}

/** A date with a separator after the year: 2093-01, 1801-01-01, 2093/1/15, 2093.12.31. */
const DATE = /^(\d{4})[-/.]\d{1,2}(?:[-/.]\d{1,2})?$/;
const BARE_YEAR = /^\d{4}$/;
const MONTH = /^(?:0?[1-9]|1[0-2])$/;
/** Words in a query key or path segment that say the number after it is a year (startDate, year_from, cal). */
const YEAR_WORDS = new Set(["year", "years", "yr", "y", "date", "cal", "calendar"]);

function namesAYear(name: string): boolean {
  return name.split(/[^A-Za-z]+|(?=[A-Z])/).some((word) => YEAR_WORDS.has(word.toLowerCase()));
}

/**
 * A calendar far in the future or past: year=2093, /2093/01/, /calendar/2093, date=1801-01-01. A bare four-digit
 * number counts as a year only when its neighbours say so (a month after it, or a name like "year" or "calendar"
 * before it): /product/1234 and ?id=5000 are ids, not calendars.
 */
function hasFarDate(url: HrefParts, currentYear: number): boolean {
  // A year is four digits in a row, written as such or (in the query) percent-encoded.
  if (!FOUR_DIGITS.test(url.pathname) && !FOUR_DIGITS_OR_ESCAPE.test(url.search)) return false;
  const years: string[] = [];
  const segments = url.pathname.split("/");
  segments.forEach((segment, i) => {
    const date = DATE.exec(segment);
    if (date) years.push(date[1]);
    else if (
      BARE_YEAR.test(segment) && (MONTH.test(segments[i + 1] ?? "") || namesAYear(segments[i - 1] ?? ""))
    ) years.push(segment);
  });
  for (const [key, value] of queryPairs(url.search)) {
    const date = DATE.exec(value);
    if (date) years.push(date[1]);
    else if (BARE_YEAR.test(value) && namesAYear(key)) years.push(value);
  }
  return years.some((text) => {
    const year = Number(text);
    return year > currentYear + YEARS_AHEAD || (year < EARLIEST_YEAR && year >= 1000);
  });
}

/** Detects trap URLs; one per crawl, as it remembers query variants per path. */
export class TrapDetector {
  readonly #variants = new Map<string, number>();
  readonly #currentYear = new Date().getFullYear();
  readonly #maxUrlLength: number;

  readonly #countedPaths: number;

  /** `countedPaths`: how many paths' query variants are counted at most (tests make it small). */
  constructor(maxUrlLength: number, countedPaths = COUNTED_PATHS) {
    this.#maxUrlLength = maxUrlLength;
    this.#countedPaths = countedPaths;
  }

  /** Why the URL looks like a trap, or undefined. `parts` are the URL's, when the caller has them. */
  check(url: string, parts?: HrefParts): string | undefined {
    if (url.length > this.#maxUrlLength) return "url too long";
    const parsed = parts ?? new URL(url);
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
  countVariant(url: string, parts?: HrefParts): string | undefined {
    const parsed = parts ?? new URL(url);
    if (parsed.search) {
      const key = parsed.host + parsed.pathname;
      const seen = (this.#variants.get(key) ?? 0) + 1;
      // Deleted and set again: the map stays in order of last count, and the least recently counted goes first.
      this.#variants.delete(key);
      this.#variants.set(key, seen);
      if (this.#variants.size > this.#countedPaths) this.#variants.delete(this.#variants.keys().next().value!);
      if (seen > MAX_QUERY_VARIANTS_PER_PATH) return "endless query variants";
    }
    return undefined;
  }
}
