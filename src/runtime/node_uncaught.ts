/**
 * Errors nothing caught, on Node: every handler added is asked in turn, and the first that returns true has dealt
 * with the error. One pair of process listeners serves them all, because Node calls every listener: with one pair per
 * handler, a handler that did not want an error (another crawl's, or the program's own) could not tell whether
 * another one took it. An error no handler takes goes where it would have gone without Netweir: to the program's own
 * listeners when it has some, else Node's end (the stack on standard error and exit status 1), which a listener of
 * ours would otherwise have kept from happening.
 */
import process from "node:process";
import type { UncaughtErrorHandler } from "./types.ts";

type Kind = Parameters<UncaughtErrorHandler>[1];
const EVENTS = { rejection: "unhandledRejection", exception: "uncaughtException" } as const;

/** The handlers for one process (the runtime's, since the process's listeners are the process's). */
export function nodeUncaughtErrors(): (handler: UncaughtErrorHandler) => () => void {
  const handlers = new Set<UncaughtErrorHandler>();
  const listeners = {
    rejection: (reason: unknown) => settle(reason, "rejection"),
    exception: (error: unknown) => settle(error, "exception"),
  };
  function settle(error: unknown, kind: Kind): void {
    for (const handler of [...handlers]) if (handler(error, kind)) return;
    // The program listens too: the error is its to deal with, as it would be without us.
    if (process.listenerCount(EVENTS[kind]) > 1) return;
    process.stderr.write(`${error instanceof Error && error.stack ? error.stack : String(error)}\n`);
    process.exit(1);
  }
  return (handler) => {
    if (handlers.size === 0) {
      process.on(EVENTS.rejection, listeners.rejection);
      process.on(EVENTS.exception, listeners.exception);
    }
    handlers.add(handler);
    return () => {
      if (!handlers.delete(handler) || handlers.size > 0) return;
      process.off(EVENTS.rejection, listeners.rejection);
      process.off(EVENTS.exception, listeners.exception);
    };
  };
}
