/**
 * Items on standard output: `-o -` (JSON Lines) or `-o stdout:FORMAT` (jsonl, json, csv, xml), so that
 * `netweir crawl x.ts -o - | jq` works. The crawl's log lines go to standard error, so the two never mix.
 */
import { UsageError } from "../errors.ts";
import { runtime } from "../runtime/mod.ts";
import type { Item, Logger } from "../spider/types.ts";
import { csvEncoder } from "./csv.ts";
import type { Feed, FeedFormatName } from "./feed.ts";
import type { FeedEncoder } from "./feed_file.ts";
import { jsonEncoder } from "./json.ts";
import { jsonlEncoder } from "./jsonl.ts";
import { xmlEncoder } from "./xml.ts";

/** The encoders a text stream can take; parquet is a binary file written at close, not a stream. */
const STREAM_ENCODERS: Partial<Record<FeedFormatName, (log?: Logger) => FeedEncoder>> = {
  jsonl: () => jsonlEncoder(),
  json: () => jsonEncoder(),
  csv: (log) => csvEncoder({ log, path: "stdout" }),
  xml: () => xmlEncoder(),
};

/** Whether an output path names standard output rather than a file. */
export function isStdoutPath(path: string): boolean {
  return path === "-" || path.startsWith("stdout:");
}

/** The format of a standard-output target; throws a UsageError for one that cannot be streamed. */
export function stdoutFormat(path: string): FeedFormatName {
  const name = path === "-" ? "jsonl" : path.slice("stdout:".length).toLowerCase();
  if (name in STREAM_ENCODERS) return name as FeedFormatName;
  const supported = Object.keys(STREAM_ENCODERS).map((format) => `stdout:${format}`).join(", ");
  throw new UsageError(`output ${path} is not a format standard output can take; supported: -, ${supported}`);
}

/** Writes text in call order; a write resolves once its text has been handed to standard output. */
type TextWriter = (text: string) => Promise<void>;

/** A feed on standard output (or on `write`, for tests). Writes are chained so batches land whole and in order. */
export class StdoutFeed implements Feed {
  readonly path: string;
  readonly #encoder: FeedEncoder;
  readonly #write: TextWriter;
  #tail: Promise<void>;
  #closing: Promise<void> | undefined;

  constructor(path: string, options: { log?: Logger; write?: TextWriter } = {}) {
    this.path = path;
    this.#encoder = STREAM_ENCODERS[stdoutFormat(path)]!(options.log);
    this.#write = options.write ?? ((text) => runtime.writeStdout(text));
    const started = this.#send(this.#encoder.start());
    this.#tail = started.catch(() => {});
  }

  #send(text: string): Promise<void> {
    if (text === "") return Promise.resolve();
    return this.#write(text).catch((error) => {
      // `netweir crawl x.ts -o - | head`: the reader left. Said in words rather than as the system's EPIPE.
      const code = (error as { code?: string }).code;
      if (code === "EPIPE" || error instanceof Error && /broken pipe/i.test(error.message)) {
        throw new Error("standard output was closed: whatever read the items (-o -) stopped reading", { cause: error });
      }
      throw error;
    });
  }

  write(items: Item[]): Promise<void> {
    if (this.#closing) return Promise.reject(new Error("standard output feed is closed; items not written"));
    if (items.length === 0) return this.#tail;
    const previous = this.#tail;
    // Encoded now (the executor runs at once), so a bad item rejects this write and the batch is fixed at the call.
    const written = new Promise<string>((resolve) => resolve(this.#encoder.encode(items)))
      .then(async (text) => {
        await previous;
        await this.#send(text);
      });
    // The chain goes on after a failed write, so one failure does not block the writes after it.
    this.#tail = written.catch(() => {});
    return written;
  }

  close(): Promise<void> {
    this.#closing ??= this.#tail.then(() => this.#send(this.#encoder.finish()));
    return this.#closing;
  }
}
