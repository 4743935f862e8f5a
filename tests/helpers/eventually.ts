/** Waiting in tests for something another process does. */
import { waitUntil } from "./wait.ts";

/** Polls `check` every 100 ms until it returns something other than undefined; fails after 60 s (a guard only). */
export function eventually<T>(what: string, check: () => T | undefined | Promise<T | undefined>): Promise<T> {
  return waitUntil(what, check, 60_000, 100);
}
