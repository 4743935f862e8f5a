/** Log lines on standard error, with secrets masked. One logger per crawl: nothing here is global. */
import { runtime } from "./runtime/mod.ts";

/** Logs for spider code; lines go to standard error with the crawl's level. */
export interface Logger {
  /** Logs a line at debug level, with data as its key=value fields. */
  debug(message: string, data?: Record<string, unknown>): void;
  /** Logs a line at info level, with data as its key=value fields. */
  info(message: string, data?: Record<string, unknown>): void;
  /** Logs a line at warning level, with data as its key=value fields. */
  warning(message: string, data?: Record<string, unknown>): void;
  /** Logs a line at error level, with data as its key=value fields. */
  error(message: string, data?: Record<string, unknown>): void;
}

const LEVELS = ["debug", "info", "warning", "error"] as const;
export type LogLevel = typeof LEVELS[number];

/** Query parameters whose value is a credential: `?pass=`, `&token=` and the like. */
const SECRET_PARAM_NAMES = "pass|password|sentinel_password|passwd|pwd|auth|token|access_token|secret|api_?key";

/** Whether a query parameter's name says its value is a credential (maskUrl). */
const SECRET_PARAM_NAME = new RegExp(`^(?:${SECRET_PARAM_NAMES})$`, "i");

/**
 * A URL's password: from `://` and the user name to the last `@` before white space or a `/`. The pattern starts at
 * `://`, not at the scheme before it: a scheme-first pattern (`[a-z][a-z0-9+.-]*://`) is tried at every letter of a
 * long word and runs to the word's end each time, which took seconds for a 50 KB value and hung the service for a
 * 1 MB one. From `://` each stretch of text is scanned at most twice (the user name and password stop at a `/`, which
 * the next `://` holds), so masking takes time in proportion to the text's length.
 */
const URL_PASSWORD = /(:\/\/[^/\s:@]*:)[^\s/]*@/g;

/**
 * A secret query parameter's value: up to the next `&` or white space, leaving punctuation that ends the URL in a
 * sentence ("...pass=***: why"). Tried only where `?` or `&` and a name start, and scanned once from there.
 */
const SECRET_PARAM = new RegExp(`([?&](?:${SECRET_PARAM_NAMES})=)[^&\\s]*?(?=[:,;.)]?(?:[\\s&]|$))`, "gi");

/**
 * Hides the password in any URL in a text: `redis://:secret@host` becomes `redis://:***@host`, and a `pass=`,
 * `password=`, `pwd=`, `auth=`, `token=` (and the like) query parameter is masked the same way. A safety net for whole
 * log lines and messages; where a message names a URL it knows, maskUrl() is exact. Linear in the text's length.
 */
export function maskSecrets(text: string): string {
  // Up to the last @ of the URL: a password may hold a raw @ (the URL parser takes the last one).
  return text.replace(URL_PASSWORD, "$1***@").replace(SECRET_PARAM, "$1***");
}

/**
 * A URL with its password replaced by `***`, parsed rather than pattern-matched, so that a password holding `@`,
 * spaces or `:` is hidden whole: for naming a server in a message. Text that does not parse is masked as any text.
 */
export function maskUrl(url: string): string {
  const parsed = URL.parse(url);
  if (parsed === null) return maskSecrets(url);
  if (parsed.password !== "") parsed.password = "***";
  for (const name of new Set(parsed.searchParams.keys())) {
    if (SECRET_PARAM_NAME.test(name)) parsed.searchParams.set(name, "***");
  }
  return maskSecrets(parsed.href);
}

/**
 * How a log line looks: `netweir` is `2026-12-01T10:21:07.415Z INFO message`; `scrapy` is Scrapy's own,
 * `2026-12-01 10:21:07 [netweir] INFO: message` in local time, which tools written for Scrapy logs (ScrapydWeb's
 * LogParser) read. netweir serve writes its jobs' logs so.
 */
export type LogFormat = "netweir" | "scrapy";

/** One log line, without its newline and before masking. `name` is Scrapy's logger name in the scrapy format. */
export function formatLogLine(format: LogFormat, level: string, message: string, name = "netweir"): string {
  const now = new Date();
  if (format === "netweir") return `${now.toISOString()} ${level.toUpperCase()} ${message}`;
  const pad = (value: number) => String(value).padStart(2, "0");
  const time = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())} ` +
    `${pad(now.getHours())}:${pad(now.getMinutes())}:${pad(now.getSeconds())}`;
  return `${time} [${name}] ${level.toUpperCase()}: ${message}`;
}

/** A logger writing `LEVEL message {json}` lines; `sink` defaults to standard error. */
export function createLogger(
  level: LogLevel = "info",
  sink: (line: string) => void = (line) => runtime.writeStderr(line),
  onWrite?: () => void,
  format: LogFormat = "netweir",
): Logger {
  const threshold = LEVELS.indexOf(level);
  const write = (lineLevel: LogLevel) => (message: string, data?: Record<string, unknown>) => {
    if (LEVELS.indexOf(lineLevel) < threshold) return;
    onWrite?.();
    const extra = data ? " " + JSON.stringify(data) : "";
    sink(maskSecrets(formatLogLine(format, lineLevel, `${message}${extra}`)) + "\n");
  };
  return { debug: write("debug"), info: write("info"), warning: write("warning"), error: write("error") };
}
