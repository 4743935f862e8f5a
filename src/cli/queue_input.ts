/**
 * The URLs of `netweir queue push`: its arguments, where `-` stands for standard input read as it goes, one URL a
 * line. Nothing is read ahead of what the push asks for, so memory stays at one batch however long the input is.
 */
import { checkHttpUrl } from "../queue/queue.ts";
import { UsageError } from "../errors.ts";
import { asUsage } from "./errors.ts";

/** A line longer than this is not a URL; refusing it keeps a file without newlines from filling memory. */
export const MAX_LINE_CHARS = 64 * 1024;

/**
 * The lines of a byte stream, decoded as UTF-8, without their line ends (`\n` or `\r\n`); a last line without a
 * newline counts. Throws UsageError naming `source` for a line longer than `maxChars`.
 */
export async function* readLines(
  stream: ReadableStream<Uint8Array>,
  maxChars = MAX_LINE_CHARS,
  source = "standard input",
): AsyncGenerator<string> {
  // A TextDecoder in streaming mode on the raw chunks, not a TextDecoderStream: the stream pipeline costs tens of
  // megabytes more over a long input, for nothing.
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let pending = "";
  let lineNumber = 0;
  const tooLong = () => new UsageError(`line ${lineNumber + 1} of ${source} is longer than ${maxChars} characters`);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        pending += decoder.decode();
        break;
      }
      pending += decoder.decode(value, { stream: true });
      let start = 0;
      for (let end = pending.indexOf("\n"); end >= 0; end = pending.indexOf("\n", start)) {
        if (end - start > maxChars) throw tooLong();
        lineNumber++;
        yield pending.slice(start, end).replace(/\r$/, "");
        start = end + 1;
      }
      pending = pending.slice(start);
      if (pending.length > maxChars) throw tooLong();
    }
    if (pending !== "") yield pending.replace(/\r$/, "");
  } finally {
    // Stopped early (an error, a failed push): let go of standard input rather than read the rest of it.
    await reader.cancel().catch(() => {});
  }
}

/**
 * The URLs to push, in order: each argument, and for `-` each line of standard input that is not blank or a
 * `#` comment, trimmed. Each one is checked as it comes: one that is not an http(s) URL is a UsageError naming the
 * argument or the line, thrown before the batch it would have joined is sent.
 */
export async function* pushUrls(
  args: readonly string[],
  stdin: () => ReadableStream<Uint8Array>,
): AsyncGenerator<string> {
  for (const arg of args) {
    if (arg !== "-") {
      asUsage(() => checkHttpUrl(arg));
      yield arg;
      continue;
    }
    let lineNumber = 0;
    for await (const raw of readLines(stdin())) {
      lineNumber++;
      const line = raw.trim();
      if (line === "" || line.startsWith("#")) continue;
      try {
        checkHttpUrl(line);
      } catch (error) {
        throw new UsageError(`line ${lineNumber} of standard input: ${(error as Error).message}`, { cause: error });
      }
      yield line;
    }
  }
}
