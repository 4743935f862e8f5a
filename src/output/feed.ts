/**
 * Item feeds (core.md C18): where the items a crawl produces are written. The engine awaits `write` before it tells
 * the frontier a page is finished, so a page counts as done only once its items are in the file.
 */
import type { Item, Logger } from "../spider/types.ts";

/** One output file receiving items batch by batch. */
export interface Feed {
  /** The path the feed writes to, as the user gave it. */
  readonly path: string;
  /**
   * Writes the items of one page. When the promise resolves, the bytes have been handed to the operating system
   * (one write per batch, nothing buffered across calls). Rejects once the feed is closing.
   */
  write(items: Item[]): Promise<void>;
  /**
   * Waits for writes in progress, finishes the file (e.g. the closing `]` of a JSON array) and closes it.
   * Idempotent: every call returns the same promise.
   */
  close(): Promise<void>;
}

/** The formats a feed can be written in. */
export type FeedFormatName = "jsonl" | "json" | "csv" | "xml" | "parquet";

/** How to open a feed. */
export interface FeedOptions {
  /** Truncate an existing file (`-O`) instead of appending to it (`-o`). */
  overwrite: boolean;
  /** Where format-specific warnings go (e.g. CSV columns that do not fit the header). */
  log?: Logger;
}

/** A file format: its extensions and how to open a feed in it. */
export interface FeedFormat {
  readonly name: FeedFormatName;
  /** Lower-case extensions with the dot, e.g. `[".jsonl", ".jl"]`. */
  readonly extensions: readonly string[];
  /**
   * Whether `-o` can add items to an existing non-empty file. A JSON array or an XML document is finished by its
   * closing tag, so appending would mean rewriting the end of the file; those formats refuse instead.
   */
  readonly appendable: boolean;
  /** A name for messages: "JSON", "CSV". */
  readonly label: string;
  open(path: string, options: FeedOptions): Promise<Feed>;
}
