/**
 * How the command line turns an error into an exit code and one line on standard error (C24): 2 for bad arguments
 * or values, 1 for failures at run time; never a stack trace for a user's mistake, never a password.
 */
import { FetchError, QueueError, SettingsError, UsageError } from "../errors.ts";
import { maskSecrets } from "../log.ts";
import { runtime } from "../runtime/mod.ts";
import { firstLine } from "../errors.ts";

export { firstLine };

/**
 * A command that could not do its job for a reason the user can act on (a project directory that already exists):
 * exit 1, one line, no stack trace.
 */
export class CommandError extends Error {
  override name = "CommandError";
}

/**
 * The exit code for an error that ended a command: 2 for bad arguments or values, 1 for anything else. Only the
 * errors that say the user gave something wrong (UsageError, SettingsError) are 2: a TypeError from a bug inside
 * Netweir, or from the spider's own code, is a failure (1), not the user's bad argument.
 */
export function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError || error instanceof SettingsError) return 2;
  return 1;
}

/**
 * Runs a check of something the user gave (a URL, a key) whose library function throws the closest built-in for a
 * bad value: a TypeError or RangeError from it becomes a UsageError (exit 2), with the same message. Only around
 * such checks: anywhere else a TypeError is a bug, and exits 1.
 */
export function asUsage<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof TypeError || error instanceof RangeError) {
      throw new UsageError(error.message, { cause: error });
    }
    throw error;
  }
}

/** Errors Netweir throws on purpose: their message says everything, so a stack trace would only be noise. */
function isOurs(error: unknown): boolean {
  return error instanceof UsageError || error instanceof SettingsError || error instanceof QueueError ||
    error instanceof FetchError || error instanceof CommandError;
}

/**
 * Writes `netweir: <message>` on one line, secrets masked. For an error Netweir did not throw on purpose (which may
 * be a bug), the stack follows when `debug` is set; it defaults to the environment variable NETWEIR_DEBUG=1.
 */
export function reportError(
  error: unknown,
  stderr: (text: string) => void,
  options: { debug?: boolean } = {},
): void {
  const debug = options.debug ?? runtime.env("NETWEIR_DEBUG") === "1";
  stderr(maskSecrets(`netweir: ${firstLine(error)}`) + "\n");
  if (debug && !isOurs(error) && error instanceof Error && error.stack) {
    stderr(maskSecrets(error.stack) + "\n");
  }
}
