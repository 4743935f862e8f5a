/**
 * The feeds of one crawl: `-o PATH` / `-O PATH` targets parsed by extension, all checked before any is opened, then
 * written in parallel for each page and closed together.
 */
import { access, constants } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { extname, resolve } from "node:path";
import { UsageError } from "../errors.ts";
import { runtime } from "../runtime/mod.ts";
import type { Item, Logger } from "../spider/types.ts";
import { csvFormat } from "./csv.ts";
import type { Feed, FeedFormat, FeedFormatName } from "./feed.ts";
import { checkFeedPath } from "./feed_file.ts";
import { jsonFormat } from "./json.ts";
import { jsonlFormat } from "./jsonl.ts";
import { parquetFormat } from "./parquet.ts";
import { type FeedPlaceholders, fillPlaceholders, withSamplePlaceholders } from "./placeholders.ts";
import { xmlFormat } from "./xml.ts";
import { isStdoutPath, StdoutFeed, stdoutFormat } from "./stdout_feed.ts";
import { isRedisStreamPath, parseRedisStreamTarget, RedisStreamFeed } from "./redis_stream_feed.ts";
import { isPostgresPath, parsePostgresTarget, PostgresFeed } from "./postgres_feed.ts";
import type { CloudEnvironment, CloudStoreOptions } from "./cloud/cloud_store.ts";
import { formatCloudUrl, isCloudPath, parseCloudUrl } from "./cloud/cloud_url.ts";

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
 * Parses an output path: the format comes from its extension (any case). A cloud address (`s3://BUCKET/KEY`,
 * `gs://BUCKET/KEY`) must have a valid bucket and an object name. Throws a UsageError for a malformed address and for
 * extensions with no format, listing the ones there are. Placeholders (`%(name)s`) are filled in later, by
 * {@link FeedSet.open}.
 */
export function parseFeedTarget(path: string, overwrite: boolean): FeedTarget {
  if (path === "") throw new UsageError("output path is empty");
  if (isStdoutPath(path)) return { path, format: stdoutFormat(path), overwrite };
  // A stream's entries hold items as JSON; -O does not empty it (other processes of the crawl may be writing to it).
  if (isRedisStreamPath(path)) {
    parseRedisStreamTarget(path);
    return { path, format: "jsonl", overwrite: false };
  }
  // A table, likewise, is never emptied by -O.
  if (isPostgresPath(path)) {
    parsePostgresTarget(path);
    return { path, format: "jsonl", overwrite: false };
  }
  if (isCloudPath(path)) parseCloudUrl(withSamplePlaceholders(path));
  const extension = extname(path).toLowerCase();
  const format = Object.values(FEED_FORMATS).find((candidate) => candidate.extensions.includes(extension));
  if (format) return { path, format: format.name, overwrite };
  const what = extension === "" ? "has no extension" : `has an unsupported extension ${extension}`;
  throw new UsageError(`output ${path} ${what}; supported: ${supportedExtensions()}`);
}

/** Whether an output is a server every process of a crawl may write to (a Redis stream, a PostgreSQL table). */
function isSharedPath(path: string): boolean {
  return isRedisStreamPath(path) || isPostgresPath(path);
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

/** What opening the feeds needs besides the targets. */
export interface FeedSetOptions {
  /** Values for `%(name)s`-style placeholders in the paths; without them, paths are taken as they are. */
  placeholders?: FeedPlaceholders;
  /** Where cloud credentials are looked for; the process's environment and home directory unless given. */
  cloudEnvironment?: CloudEnvironment;
  /** Upload knobs, for tests. */
  cloudOptions?: CloudStoreOptions;
  /** Where cloud feeds are spooled until they are uploaded; the system's temporary directory unless given. */
  spoolRoot?: string;
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
   * or a refused append throw a UsageError naming the path before any file is created or truncated. A cloud target's
   * store is asked first, with a cheap authenticated request: missing credentials or a bucket that is not there
   * throw CloudError (exit 1), again before any file is touched.
   */
  static async open(given: readonly FeedTarget[], log?: Logger, options: FeedSetOptions = {}): Promise<FeedSet> {
    const placeholders = options.placeholders;
    const targets = placeholders === undefined
      ? given
      : given.map((target) => ({ ...target, path: fillPlaceholders(target.path, placeholders) }));
    const seen = new Set<string>();
    for (const target of targets) {
      const key = isStdoutPath(target.path)
        ? "standard output"
        : isSharedPath(target.path)
        ? target.path
        : isCloudPath(target.path)
        ? formatCloudUrl(parseCloudUrl(target.path))
        : resolve(target.path);
      if (seen.has(key)) throw new UsageError(`output ${target.path} is given more than once`);
      seen.add(key);
    }
    for (const target of targets) {
      if (isCloudPath(target.path) || isStdoutPath(target.path) || isSharedPath(target.path)) continue;
      const format = FEED_FORMATS[target.format];
      await checkFeedPath(target.path, { ...format, overwrite: target.overwrite });
    }
    const spoolRoot = options.spoolRoot ?? tmpdir();
    const stores = await openCloudStores(targets, spoolRoot, options);
    const opened: OpenFeed[] = [];
    try {
      for (const target of targets) {
        const format = FEED_FORMATS[target.format];
        const store = stores.get(target);
        const feed = isStdoutPath(target.path)
          ? new StdoutFeed(target.path, { log })
          : isRedisStreamPath(target.path)
          ? await RedisStreamFeed.open(target.path)
          : isPostgresPath(target.path)
          ? await PostgresFeed.open(target.path)
          : store
          ? await store.open(format, { spoolRoot, log })
          : await format.open(target.path, { overwrite: target.overwrite, log });
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
    const failure = results.find((result) => result.status === "rejected");
    // Logged after all have closed, so the lines come in the order the feeds were given. The failure that is thrown
    // is not logged too: its message becomes the command's one error line.
    results.forEach((result, index) => {
      const { feed, format, items } = this.#feeds[index];
      if (result.status === "fulfilled") this.#log?.info(`Stored ${format} feed (${items} items) in: ${feed.path}`);
      else if (result !== failure) this.#log?.error(`Error closing ${format} feed ${feed.path}: ${result.reason}`);
    });
    if (failure) throw failure.reason;
  }
}

/** A cloud target's store, checked, ready to open its spooled feed. */
interface CheckedStore {
  open(format: FeedFormat, options: { spoolRoot: string; log?: Logger }): Promise<Feed>;
}

/**
 * Opens and checks the store of every cloud target, in the order given. The cloud modules are loaded only here, and
 * only when some target is a cloud address.
 */
async function openCloudStores(
  targets: readonly FeedTarget[],
  spoolRoot: string,
  options: FeedSetOptions,
): Promise<Map<FeedTarget, CheckedStore>> {
  const stores = new Map<FeedTarget, CheckedStore>();
  const cloud = targets.filter((target) => isCloudPath(target.path));
  if (cloud.length === 0) return stores;
  // Checked here, with the rest, so that no feed is opened (and no -O file emptied) when the spool cannot be made.
  await access(spoolRoot, constants.W_OK).catch(() => {
    throw new UsageError(
      `cannot spool ${
        cloud[0].path
      }: ${spoolRoot} is not a writable directory (set TMPDIR to one with room for the feed)`,
    );
  });
  const [{ openCloudStore }, { CloudFeed }] = await Promise.all([
    import("./cloud/cloud_store.ts"),
    import("./cloud/cloud_feed.ts"),
  ]);
  const environment = options.cloudEnvironment ?? { env: runtime.environment(), home: homedir() };
  for (const target of cloud) {
    const store = await openCloudStore(parseCloudUrl(target.path), environment, options.cloudOptions);
    await store.check();
    stores.set(target, { open: (format, feedOptions) => CloudFeed.open(store, format, feedOptions) });
  }
  return stores;
}
