/**
 * Parquet feeds (C18): `-o items.parquet`. A Parquet file has its schema and row groups' index at its end, so it is
 * written when the feed closes: until then each page's items go to a JSON Lines spool beside it (PATH.spool.jsonl,
 * one write per page, as any feed), and the close turns the spool into the Parquet file and deletes it.
 *
 * Columns are the items' fields, in the order first met. A column whose values are all booleans is BOOLEAN, all
 * numbers DOUBLE, all strings STRING, and anything else (objects, arrays, mixed types) JSON; a field an item lacks is
 * null. Rows go in groups (ROW_GROUP in parquet_file.ts), read back from the spool a group at a time, so closing a
 * large feed never holds all of it in memory.
 *
 * A process that is killed leaves the spool and no Parquet file: unlike the text formats, Parquet cannot be read
 * until it is finished.
 */
import { open, rm } from "node:fs/promises";
import type { Item } from "../spider/types.ts";
import type { Feed, FeedFormat, FeedOptions } from "./feed.ts";
import { importOwnModule } from "../runtime/optional_module.ts";

class ParquetFeed implements Feed {
  readonly path: string;
  readonly #spool: string;
  readonly #handle: Awaited<ReturnType<typeof open>>;
  #tail: Promise<void> = Promise.resolve();
  #closing: Promise<void> | undefined;

  constructor(path: string, spool: string, handle: Awaited<ReturnType<typeof open>>) {
    this.path = path;
    this.#spool = spool;
    this.#handle = handle;
  }

  write(items: Item[]): Promise<void> {
    if (this.#closing) return Promise.reject(new Error(`feed ${this.path} is closed`));
    const text = items.map((item) => JSON.stringify(item) + "\n").join("");
    const written = this.#tail.then(async () => {
      await this.#handle.write(text);
    });
    this.#tail = written.catch(() => {});
    return written;
  }

  close(): Promise<void> {
    this.#closing ??= this.#tail.then(async () => {
      await this.#handle.close();
      // The Parquet library is loaded here, when a Parquet feed is finished: a crawl without one never loads it.
      const { writeParquet } = await importOwnModule<typeof import("./parquet_file.ts")>(
        import.meta.url,
        "./parquet_file.ts",
      );
      await writeParquet(this.#spool, this.path);
      await rm(this.#spool, { force: true });
    });
    return this.#closing;
  }
}

export const parquetFormat: FeedFormat = {
  name: "parquet",
  extensions: [".parquet"],
  // A Parquet file is finished by its footer: items cannot be added to one.
  appendable: false,
  label: "Parquet",
  async open(path: string, _options: FeedOptions): Promise<Feed> {
    const spool = `${path}.spool.jsonl`;
    return new ParquetFeed(path, spool, await open(spool, "w"));
  },
};
