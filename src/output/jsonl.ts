/** JSON Lines feeds (.jsonl, .jl): one JSON object per line, appendable. */
import type { Item } from "../spider/types.ts";
import type { Feed, FeedFormat, FeedOptions } from "./feed.ts";
import { endsWithoutNewline, type FeedEncoder, FileFeed, openFeedFile } from "./feed_file.ts";

/** Encodes batches as JSON Lines. `JSON.stringify` never emits a raw newline, so one item is always one line. */
export function jsonlEncoder(startOnNewLine = false): FeedEncoder {
  return {
    start: () => (startOnNewLine ? "\n" : ""),
    encode: (items: Item[]) => items.map((item) => JSON.stringify(item) + "\n").join(""),
    finish: () => "",
  };
}

/** Opens a JSON Lines feed; appending to a file whose last line is unterminated starts a new line first. */
export async function openJsonlFeed(path: string, options: FeedOptions): Promise<Feed> {
  const file = await openFeedFile(path, { overwrite: options.overwrite, appendable: true, label: "JSON Lines" });
  let startOnNewLine: boolean;
  try {
    startOnNewLine = await endsWithoutNewline(file);
  } catch (error) {
    await file.handle.close();
    throw error;
  }
  return FileFeed.start(path, file.handle, jsonlEncoder(startOnNewLine));
}

/** The JSON Lines format. */
export const jsonlFormat: FeedFormat = {
  name: "jsonl",
  extensions: [".jsonl", ".jl"],
  appendable: true,
  label: "JSON Lines",
  open: openJsonlFeed,
};
