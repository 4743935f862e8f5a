/**
 * A feed whose file is uploaded when it closes (core.md C18): the items go to a spool file on local disk as for any
 * local feed (one write per page), and closing the feed finishes the file and uploads it. The spool is removed only
 * once the store has the object; an upload that fails keeps it and says where, so no item is lost to the network.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { basename, join } from "node:path";
import type { Item, Logger } from "../../spider/types.ts";
import type { Feed, FeedFormat } from "../feed.ts";
import { CloudError } from "../../errors.ts";
import type { CloudStore } from "./cloud_store.ts";
import { parseCloudUrl } from "./cloud_url.ts";

/** The Content-Type each format is uploaded with. */
const CONTENT_TYPES: Record<string, string> = {
  jsonl: "application/x-ndjson",
  json: "application/json",
  csv: "text/csv; charset=utf-8",
  xml: "application/xml",
  parquet: "application/vnd.apache.parquet",
};

/** A feed spooled to local disk and uploaded to a {@link CloudStore} at close. */
export class CloudFeed implements Feed {
  /** The cloud address: what the user named, and what the log's "Stored ... in:" line shows. */
  readonly path: string;
  /** The local file the items are written to until the upload. */
  readonly spoolPath: string;
  readonly #spoolDir: string;
  readonly #inner: Feed;
  readonly #store: CloudStore;
  readonly #contentType: string;
  #closing: Promise<void> | undefined;

  private constructor(store: CloudStore, inner: Feed, spoolDir: string, spoolPath: string, format: FeedFormat) {
    this.path = store.url;
    this.#store = store;
    this.#inner = inner;
    this.#spoolDir = spoolDir;
    this.spoolPath = spoolPath;
    this.#contentType = CONTENT_TYPES[format.name] ?? "application/octet-stream";
  }

  /**
   * Opens a spool for `store` in a new directory under `spoolRoot` (the system's temporary directory unless told),
   * named after the object so that a kept spool is easy to recognise.
   */
  static async open(
    store: CloudStore,
    format: FeedFormat,
    options: { spoolRoot: string; log?: Logger },
  ): Promise<CloudFeed> {
    const dir = await mkdtemp(join(options.spoolRoot, "netweir-spool-"));
    const spoolPath = join(dir, basename(parseCloudUrl(store.url).key));
    try {
      const inner = await format.open(spoolPath, { overwrite: true, log: options.log });
      // Said at the start, so that the items of a process killed before the upload can be found.
      options.log?.info(`feed ${store.url} is spooled to ${spoolPath} until it is uploaded at the end of the crawl`);
      return new CloudFeed(store, inner, dir, spoolPath, format);
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  write(items: Item[]): Promise<void> {
    if (this.#closing) return Promise.reject(new Error(`feed ${this.path} is closed; items not written`));
    return this.#inner.write(items);
  }

  close(): Promise<void> {
    this.#closing ??= this.#closeAndUpload();
    return this.#closing;
  }

  async #closeAndUpload(): Promise<void> {
    await this.#inner.close();
    try {
      await this.#store.upload(this.spoolPath, this.#contentType);
    } catch (error) {
      const reason = error instanceof CloudError ? error.message : String((error as Error)?.message ?? error);
      throw new CloudError(`upload to ${this.path} failed: ${reason}; the items are kept in ${this.spoolPath}`, {
        cause: error,
      });
    }
    await rm(this.#spoolDir, { recursive: true, force: true });
  }
}
