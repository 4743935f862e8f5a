/** Log lines on standard error, with secrets masked. One logger per crawl: nothing here is global. */
import { runtime } from "./runtime/mod.ts";
import type { Logger } from "./spider/types.ts";

const LEVELS = ["debug", "info", "warning", "error"] as const;
export type LogLevel = typeof LEVELS[number];

/** Hides the password in any URL in a text: `redis://:secret@host` becomes `redis://:***@host`. */
export function maskSecrets(text: string): string {
  return text
    .replace(/([a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:)[^@\s/]*@/gi, "$1***@")
    .replace(/([?&](?:pass|password)=)[^&\s]*/gi, "$1***");
}

/** A logger writing `LEVEL message {json}` lines; `sink` defaults to standard error. */
export function createLogger(
  level: LogLevel = "info",
  sink: (line: string) => void = (line) => runtime.writeStderr(line),
  onWrite?: () => void,
): Logger {
  const threshold = LEVELS.indexOf(level);
  const write = (lineLevel: LogLevel) => (message: string, data?: Record<string, unknown>) => {
    if (LEVELS.indexOf(lineLevel) < threshold) return;
    onWrite?.();
    const extra = data ? " " + JSON.stringify(data) : "";
    sink(maskSecrets(`${new Date().toISOString()} ${lineLevel.toUpperCase()} ${message}${extra}`) + "\n");
  };
  return { debug: write("debug"), info: write("info"), warning: write("warning"), error: write("error") };
}
