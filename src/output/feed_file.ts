/**
 * What every local feed shares: checking that a path can be written, opening it for append or overwrite, and a
 * {@link Feed} that writes each batch with one call and finishes the file at close. The formats only say what text
 * goes at the start, for each batch, and at the end.
 */
import { type FileHandle, open } from "node:fs/promises";
import { UsageError } from "../errors.ts";
import { checkWritableFile } from "../settings/writable_path.ts";
import type { Item } from "../spider/types.ts";
import type { Feed } from "./feed.ts";

/** Turns batches of items into the text of one format. Encoders may keep state (a CSV header, a first-item flag). */
export interface FeedEncoder {
  /** Text written once when the file is opened (`[` for JSON); empty for none. */
  start(): string;
  /** The text for one batch, appended as it is. Called once per batch, in order. */
  encode(items: Item[]): string;
  /** Text written at close (`\n]\n` for JSON); empty for none. */
  finish(): string;
}

/** An opened feed file and what was in it before. */
export interface OpenedFeedFile {
  readonly handle: FileHandle;
  /** Size in bytes before this crawl wrote anything (0 when overwriting or new). */
  readonly existingSize: number;
}

const textEncoder = new TextEncoder();

function cannotWrite(path: string, reason: string, cause?: unknown): UsageError {
  return new UsageError(`cannot write feed ${path}: ${reason}`, { cause });
}

/**
 * Checks, without creating or changing anything, that a feed can be opened at `path`: its directory exists, it is
 * not a directory, it is writable, and (for formats that cannot append) that `-o` would not have to append to a
 * non-empty file. Throws a UsageError naming the path otherwise. Run for every feed before any is opened, so a bad
 * second `-o` does not leave the first one truncated.
 */
export async function checkFeedPath(
  path: string,
  options: { overwrite: boolean; appendable: boolean; label: string },
): Promise<void> {
  const size = await checkWritableFile(path, "feed");
  if (size !== undefined && !options.overwrite && !options.appendable && size > 0) {
    throw new UsageError(`cannot append to existing ${options.label} file ${path}; use -O to overwrite`);
  }
}

/**
 * Opens a feed file after {@link checkFeedPath}: truncated for `overwrite`, else for appending (and reading, so a
 * format can look at what is already there).
 */
export async function openFeedFile(
  path: string,
  options: { overwrite: boolean; appendable: boolean; label: string },
): Promise<OpenedFeedFile> {
  await checkFeedPath(path, options);
  let handle: FileHandle;
  try {
    handle = await open(path, options.overwrite ? "w" : "a+");
  } catch (error) {
    // The check passed but the file changed in between, or permissions the check could not see.
    throw cannotWrite(path, String((error as Error).message ?? error), error);
  }
  try {
    const existingSize = options.overwrite ? 0 : (await handle.stat()).size;
    if (!options.overwrite && !options.appendable && existingSize > 0) {
      throw new UsageError(`cannot append to existing ${options.label} file ${path}; use -O to overwrite`);
    }
    return { handle, existingSize };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Reads up to `length` bytes of an opened file from `position` (the file must be open for reading: append mode). */
export async function readBytes(handle: FileHandle, position: number, length: number): Promise<Uint8Array> {
  const buffer = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** Whether a non-empty existing file ends without a newline, so appended text must start on a new line. */
export async function endsWithoutNewline(file: OpenedFeedFile): Promise<boolean> {
  if (file.existingSize === 0) return false;
  const last = await readBytes(file.handle, file.existingSize - 1, 1);
  return last[0] !== 0x0a;
}

/** Hands all of `text` to the OS. A regular file takes it in one write; the loop only covers partial writes. */
async function writeText(handle: FileHandle, text: string): Promise<void> {
  if (text === "") return;
  const bytes = textEncoder.encode(text);
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
    offset += bytesWritten;
  }
}

/**
 * A feed over an opened file. Writes are queued one after another, so batches land whole and in call order even
 * when the engine does not await one before starting the next; `close` waits for the queue, then writes the end.
 * The batches that arrive while a write is in flight go out together in the next one: at thousands of pages a second
 * a write per page was 12% of a crawl's time on Node, where each is a thread-pool round trip. Those joined in one
 * write succeed or fail together.
 */
export class FileFeed implements Feed {
  readonly path: string;
  readonly #handle: FileHandle;
  readonly #encoder: FeedEncoder;
  /** The last queued write; never rejects, so one failed write does not block the ones after it. */
  #tail: Promise<void> = Promise.resolve();
  /** The texts waiting for the next write, joined when its turn comes; undefined when none wait. */
  #next: { texts: string[]; done: PromiseWithResolvers<void> } | undefined;
  #closing: Promise<void> | undefined;

  private constructor(path: string, handle: FileHandle, encoder: FeedEncoder) {
    this.path = path;
    this.#handle = handle;
    this.#encoder = encoder;
  }

  /** Wraps an opened file and writes the encoder's start; closes the file if that fails. */
  static async start(path: string, handle: FileHandle, encoder: FeedEncoder): Promise<FileFeed> {
    try {
      await writeText(handle, encoder.start());
    } catch (error) {
      await handle.close();
      throw cannotWrite(path, String((error as Error).message ?? error), error);
    }
    return new FileFeed(path, handle, encoder);
  }

  write(items: Item[]): Promise<void> {
    if (this.#closing) return Promise.reject(new Error(`feed ${this.path} is closed; items not written`));
    if (items.length === 0) return this.#tail;
    let text: string;
    try {
      // Encoded now, not when the queue reaches it: the batch is fixed at the call, and a bad item rejects this
      // write before any of its bytes reach the file.
      text = this.#encoder.encode(items);
    } catch (error) {
      return Promise.reject(error);
    }
    let next = this.#next;
    if (!next) {
      const batch = { texts: [] as string[], done: Promise.withResolvers<void>() };
      this.#next = next = batch;
      this.#tail = this.#tail.then(async () => {
        this.#next = undefined;
        try {
          await writeText(this.#handle, batch.texts.join(""));
          batch.done.resolve();
        } catch (error) {
          batch.done.reject(error);
        }
      });
    }
    next.texts.push(text);
    return next.done.promise;
  }

  close(): Promise<void> {
    this.#closing ??= this.#tail.then(async () => {
      try {
        await writeText(this.#handle, this.#encoder.finish());
      } finally {
        await this.#handle.close();
      }
    });
    return this.#closing;
  }
}
