/**
 * The errors callers catch. Bad values throw the closest built-in (TypeError, RangeError); these are for conditions
 * with a meaning of their own. The CLI maps SettingsError and UsageError to exit 2, the rest to exit 1.
 */

/** A setting that does not exist, has the wrong type, or fails a start-of-crawl check. */
export class SettingsError extends Error {
  override name = "SettingsError";
  /** The setting at fault, in its command-line spelling, when there is one. */
  readonly setting: string | undefined;
  constructor(message: string, options?: { setting?: string; cause?: unknown }) {
    super(message, { cause: options?.cause });
    this.setting = options?.setting;
  }
}

/** Bad command-line arguments: a spider that is not there, a malformed `-a`, a file that cannot be read. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** A shared queue that cannot be reached or used. A kind of connection error, as in Python. */
export class QueueError extends Error {
  override name = "QueueError";
}

/** A request could not be fetched: network failure, timeout, too many redirects, a body over the size limit. */
export class FetchError extends Error {
  override name = "FetchError";
  /** A short machine-readable reason (`timeout`, `network`, `redirects`, `too_large`, ...). */
  readonly reason: string;
  constructor(reason: string, message: string, options?: { cause?: unknown }) {
    super(message, { cause: options?.cause });
    this.reason = reason;
  }
}

/** The first non-empty line of an error's message (or of the value thrown), trimmed. */
export function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const line = text.split("\n").map((part) => part.trim()).find((part) => part !== "");
  if (line !== undefined) return line;
  return error instanceof Error ? error.name : "unknown error";
}
