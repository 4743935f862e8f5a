/** Node's process warnings, one kind held back. */
import process from "node:process";

/**
 * Drops the warnings whose text starts with `prefix` (every other warning still goes through) until the function it
 * returns is called. For Node's "experimental" notices on features Netweir has chosen to use, which say nothing a
 * user can act on.
 */
export function dropWarnings(prefix: string): () => void {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (warning: string | Error, ...rest: unknown[]) {
    const text = typeof warning === "string" ? warning : warning?.message;
    if (typeof text === "string" && text.startsWith(prefix)) return;
    return (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  return () => void (process.emitWarning = emitWarning);
}
