/**
 * The requests of `netweir queue push --json`: JSON Lines, one request object a line, from files or standard
 * input (`-`), read as they go. A line that is not JSON is reported and left out here; a line that is JSON but not
 * a request a crawl would take is reported by the push itself (Queue.push's onBad), so both say the line's number.
 */
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import type { PushedRequest } from "../queue/pushed_request.ts";
import { readLines } from "./queue_input.ts";
import { DEFAULT_ENTRY_LIMITS } from "../queue/codec.ts";

/** A line left out, by its source and number (from 1). */
export interface BadLine {
  source: string;
  line: number;
  reason: string;
}

/**
 * The place of the request last yielded. Queue.push checks each request as soon as it has it, before it asks for
 * the next, so when it reports a bad one this is still that request's place.
 */
export interface LinePlace {
  source: string;
  line: number;
}

/** A readable stream of a file's bytes. */
function fileStream(path: string): ReadableStream<Uint8Array> {
  return Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>;
}

/**
 * The request objects of `args` (file paths, `-` for standard input), in order. Blank lines are skipped; a line
 * that does not parse as JSON goes to `onBad` and is left out. `place` is set to each object's place as it is yielded.
 */
export async function* jsonRequests(
  args: readonly string[],
  stdin: () => ReadableStream<Uint8Array>,
  place: LinePlace,
  onBad: (bad: BadLine) => void,
): AsyncGenerator<PushedRequest> {
  for (const arg of args) {
    const source = arg === "-" ? "standard input" : arg;
    let lineNumber = 0;
    for await (const raw of readLines(arg === "-" ? stdin() : fileStream(arg), DEFAULT_ENTRY_LIMITS.maxBytes, source)) {
      lineNumber++;
      if (raw.trim() === "") continue;
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch {
        onBad({ source, line: lineNumber, reason: "not JSON" });
        continue;
      }
      place.source = source;
      place.line = lineNumber;
      yield value as PushedRequest;
    }
  }
}
