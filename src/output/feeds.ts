/**
 * The feeds of one crawl: `-o PATH` / `-O PATH` targets parsed by extension, all checked before any is opened, then
 * written in parallel for each page and closed together.
 */
import { extname, resolve } from "node:path";
import { UsageError } from "../errors.ts";
import type { Item, Logger } from "../spider/types.ts";
import { csvFormat } from "./csv.ts";
import type { Feed, FeedFormat, FeedFormatName } from "./feed.ts";
import { checkFeedPath } from "./feed_file.ts";
import { jsonFormat } from "./json.ts";
import { jsonlFormat } from "./jsonl.ts";
import { parquetFormat } from "./parquet.ts";
import { xmlFormat } from "./xml.ts";

/** The formats by name. */
export const FEED_FORMATS: Readonly<Record<FeedFormatName, FeedFormat>> = {
  jsonl: jsonlFormat,
  json: jsonFormat,
  csv: csvFormat,
  xml: xmlFormat,
  parquet: parquetFormat,
};

/** One `-o`/`-O` argument, parsed. */
export interface FeedTarget {
  readonly path: string;
  readonly format: FeedFormatName;
  /** `-O`: truncate; `-o`: append. */
  readonly overwrite: boolean;
}

function supportedExtensions(): string {
  return Object.values(FEED_FORMATS).flatMap((format) => format.extensions).join(", ");
}

/**
 * Parses an output path: the format comes from its extension (any case). Throws a UsageError for cloud URLs (not
 * available yet) and for extensions with no format, listing the ones there are.
 */
export function parseFeedTarget(path: string, overwrite: boolean): FeedTarget {
  if (path === "") throw new UsageError("output path is empty");
  if (/^(s3|gs):\/\//i.test(path)) throw new UsageError("cloud output (s3://, gs://) is not available yet");
  const extension = extname(path).toLowerCase();
  const format = Object.values(FEED_FORMATS).find((candidate) => candidate.extensions.includes(extension));
  if (format) return { path, format: format.name, overwrite };
  const what = extension === "" ? "has no extension" : `has an unsupported extension ${extension}`;
  throw new UsageError(`output ${path} ${what}; supported: ${supportedExtensions()}`);
}

/** An opened feed and what it has taken, for the line logged at close. */
interface OpenFeed {
  readonly feed: Feed;
  readonly format: FeedFormatName;
  items: number;
}

async function settleAll(tasks: Promise<unknown>[]): Promise<void> {
  const results = await Promise.allSettled(tasks);
  const failure = results.find((result) => result.status === "rejected");
  if (failure) throw failure.reason;
}

/** The feeds of one crawl. */
export class FeedSet {
  readonly #feeds: readonly OpenFeed[];
  readonly #log: Logger | undefined;
  #closing: Promise<void> | undefined;

  private constructor(feeds: OpenFeed[], log: Logger | undefined) {
    this.#feeds = feeds;
    this.#log = log;
  }

  /**
   * Opens every target, or none: two targets for the same file, a missing directory, a path that cannot be written
   * or a refused append throw a UsageError naming the path before any file is created or truncated.
   */
  static async open(targets: readonly FeedTarget[], log?: Logger): Promise<FeedSet> {
    const seen = new Set<string>();
    for (const target of targets) {
      const key = resolve(target.path);
      if (seen.has(key)) throw new UsageError(`output ${target.path} is given more than once`);
      seen.add(key);
    }
    for (const target of targets) {
      const format = FEED_FORMATS[target.format];
      await checkFeedPath(target.path, { ...format, overwrite: target.overwrite });
    }
    const opened: OpenFeed[] = [];
    try {
      for (const target of targets) {
        const feed = await FEED_FORMATS[target.format].open(target.path, { overwrite: target.overwrite, log });
        opened.push({ feed, format: target.format, items: 0 });
      }
    } catch (error) {
      await Promise.allSettled(opened.map(({ feed }) => feed.close()));
      throw error;
    }
    return new FeedSet(opened, log);
  }

  /** The paths written to, in the order given. */
  get paths(): string[] {
    return this.#feeds.map(({ feed }) => feed.path);
  }

  /**
   * Writes one page's items to every feed in parallel; resolves when all have handed them to the OS. If a feed
   * fails, the others still finish their write and the first failure is thrown.
   */
  write(items: Item[]): Promise<void> {
    if (this.#closing) return Promise.reject(new Error("feeds are closed; items not written"));
    if (items.length === 0) return Promise.resolve();
    return settleAll(this.#feeds.map(async (open) => {
      await open.feed.write(items);
      open.items += items.length;
    }));
  }

  /** Closes every feed after the writes in progress; idempotent, so a signal handler may call it at any time. */
  close(): Promise<void> {
    this.#closing ??= this.#closeAll();
    return this.#closing;
  }

  async #closeAll(): Promise<void> {
    const results = await Promise.allSettled(this.#feeds.map(({ feed }) => feed.close()));
    // Logged after all have closed, so the lines come in the order the feeds were given.
    results.forEach((result, index) => {
      const { feed, format, items } = this.#feeds[index];
      if (result.status === "fulfilled") this.#log?.info(`Stored ${format} feed (${items} items) in: ${feed.path}`);
      else this.#log?.error(`Error closing ${format} feed ${feed.path}: ${result.reason}`);
    });
    const failure = results.find((result) => result.status === "rejected");
    if (failure) throw failure.reason;
  }
}
