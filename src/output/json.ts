/**
 * JSON feeds (.json): one JSON array, as Scrapy's JsonItemExporter writes it: `[` when opened, one item per line
 * separated by `,\n`, `]` at close. The file is valid JSON only after close, even with no items (`[\n]\n`).
 */
import type { Item } from "../spider/types.ts";
import type { Feed, FeedFormat, FeedOptions } from "./feed.ts";
import { type FeedEncoder, FileFeed, openFeedFile } from "./feed_file.ts";

/** Encodes batches as the elements of one JSON array. */
export function jsonEncoder(): FeedEncoder {
  let first = true;
  return {
    start: () => "[",
    encode(items: Item[]) {
      // Stringify every item before touching `first`, so a batch that throws leaves the encoder as it was.
      const text = items.map((item) => JSON.stringify(item)).join(",\n");
      const separator = first ? "\n" : ",\n";
      first = false;
      return separator + text;
    },
    finish: () => "\n]\n",
  };
}

const options = { appendable: false, label: "JSON" } as const;

/** Opens a JSON feed. `-o` onto a non-empty file is refused: an array cannot be appended to without rewriting it. */
export async function openJsonFeed(path: string, feedOptions: FeedOptions): Promise<Feed> {
  const file = await openFeedFile(path, { ...options, overwrite: feedOptions.overwrite });
  return FileFeed.start(path, file.handle, jsonEncoder());
}

/** The JSON array format. */
export const jsonFormat: FeedFormat = { name: "json", extensions: [".json"], ...options, open: openJsonFeed };
