/**
 * The errors callers catch, all in one place at the bottom of the layers so that any part may throw them. Bad values
 * throw the closest built-in (TypeError, RangeError); these are for conditions with a meaning of their own. The CLI
 * maps SettingsError and UsageError to exit 2, the rest to exit 1.
 */

/**
 * The response an error carries: what was answered. It is a plain shape of its own (a Page's response has these
 * fields and more) so that this module, below every other, imports nothing.
 */
export interface AnsweredResponse {
  /** The final URL, after redirects. */
  readonly url: string;
  /** The HTTP status. */
  readonly status: number;
  /** The response headers. */
  readonly headers: Headers;
  /** The body, decompressed. */
  readonly body: Uint8Array;
}

/** A setting that does not exist, has the wrong type, or fails a start-of-crawl check. */
export class SettingsError extends Error {
  /** Always "SettingsError". */
  override name = "SettingsError";
  /** The setting at fault, in its command-line spelling, when there is one. */
  readonly setting: string | undefined;
  /** An error with its message, the setting at fault and the error behind it, when there are. */
  constructor(message: string, options?: { setting?: string; cause?: unknown }) {
    super(message, { cause: options?.cause });
    this.setting = options?.setting;
  }
}

/** Bad command-line arguments: a spider that is not there, a malformed `-a`, a file that cannot be read. */
export class UsageError extends Error {
  /** Always "UsageError". */
  override name = "UsageError";
}

/** A shared queue that cannot be reached or used. A kind of connection error, as in Python. */
export class QueueError extends Error {
  /** Always "QueueError". */
  override name = "QueueError";
}

/** A request could not be fetched: network failure, timeout, too many redirects, a body over the size limit. */
export class FetchError extends Error {
  /** Always "FetchError". */
  override name = "FetchError";
  /** A short machine-readable reason (`timeout`, `network`, `redirects`, `too_large`, ...). */
  readonly reason: string;
  /**
   * For a rendered request, the PNG of the tab's viewport when it failed (undefined when none could be taken). Also
   * on the errback's failure as `failure.screenshot`.
   */
  screenshot?: Uint8Array;
  /** For a rendered request, the page's HTML when it failed (cut at 2,000,000 characters); `failure.html` too. */
  html?: string;
  /** An error with its reason, its message and the error behind it, when there is one. */
  constructor(reason: string, message: string, options?: { cause?: unknown }) {
    super(message, { cause: options?.cause });
    this.reason = reason;
  }
}

/** An HTTP answer the spider did not ask to handle (Scrapy's HttpError), handed to errbacks. */
export class HttpStatusError extends Error {
  /** Always "HttpStatusError". */
  override name = "HttpStatusError";
  /** The answer. */
  readonly response: AnsweredResponse;
  /** The error for an answer; its message names the status and the URL. */
  constructor(response: AnsweredResponse) {
    super(`HTTP ${response.status} for ${response.url}`);
    this.response = response;
  }
}

/** What an errback is given for a blocked response: the response, and why it looks blocked. */
export class BlockedError extends Error {
  /** Always "BlockedError". */
  override name = "BlockedError";
  /** The answer that looks blocked. */
  readonly response: AnsweredResponse;
  /** Why it looks blocked: the block rule that matched (a status, a header, a body pattern). */
  readonly reason: string;
  /** The error for a blocked answer and the reason it looks blocked. */
  constructor(response: AnsweredResponse, reason: string) {
    super(`${response.url} looks blocked (${reason}, HTTP ${response.status})`);
    this.response = response;
    this.reason = reason;
  }
}

/** No browser to render with: the message names the setting that fixes it. */
export class BrowserMissingError extends Error {
  /** Always "BrowserMissingError". */
  override name = "BrowserMissingError";
}

/**
 * A cloud store that refuses or cannot be reached: missing credentials, a bucket that is not there, an upload that
 * failed. A failure at run time, so the command line exits 1 with its message as the one line. Messages never carry
 * a secret: they name where credentials came from, never the credentials.
 */
export class CloudError extends Error {
  /** Always "CloudError". */
  override name = "CloudError";
}

/** The first non-empty line of an error's message (or of the value thrown), trimmed. */
export function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const line = text.split("\n").map((part) => part.trim()).find((part) => part !== "");
  if (line !== undefined) return line;
  return error instanceof Error ? error.name : "unknown error";
}
