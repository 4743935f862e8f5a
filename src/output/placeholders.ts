/**
 * `%(name)s`-style placeholders in feed paths, as Scrapy's FEEDS have them: `s3://b/%(name)s/%(time)s.jsonl`. Filled
 * in once, when the feeds are opened, so every feed of a crawl gets the same start time.
 */
import { UsageError } from "../errors.ts";

/** The values a feed path can name: the spider's name, the start time, and the spider's string attributes. */
export type FeedPlaceholders = Readonly<Record<string, string>>;

const PLACEHOLDER = /%\(([^)]*)\)s/g;

/**
 * The start time as Scrapy writes it in `%(time)s`: UTC ISO 8601 to the second, with `-` for `:` (a colon is not
 * allowed in Windows file names and is awkward in object names).
 */
export function placeholderTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "").replaceAll(":", "-");
}

/**
 * The placeholders of a spider: its string-valued own properties (the `-a` arguments among them), then `name` and
 * `time`, which win over attributes of the same name.
 */
export function spiderPlaceholders(spider: object, name: string, start: Date): FeedPlaceholders {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(spider)) if (typeof value === "string") values[key] = value;
  values.name = name;
  values.time = placeholderTime(start);
  return values;
}

/**
 * Fills in every `%(key)s` of `path`. Throws a UsageError naming the path and the placeholder when `key` has no
 * value. A path without placeholders comes back as it is.
 */
export function fillPlaceholders(path: string, values: FeedPlaceholders): string {
  return path.replace(PLACEHOLDER, (whole, key: string) => {
    if (!Object.hasOwn(values, key)) {
      throw new UsageError(
        `output ${path}: unknown placeholder ${whole} (known: %(name)s, %(time)s and the spider's string attributes)`,
      );
    }
    return values[key];
  });
}

/** `path` with every placeholder replaced by a sample value, for checking its shape before the values are known. */
export function withSamplePlaceholders(path: string): string {
  return path.replace(PLACEHOLDER, "x");
}
