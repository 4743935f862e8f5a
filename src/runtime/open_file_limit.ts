/**
 * The process's limit on open files (its soft RLIMIT_NOFILE), read from /proc/self/limits on Linux; undefined where
 * that cannot be read (another system). Deno and Node both raise the soft limit to the hard one when they start, so
 * this is what a crawl may really open.
 */
import { readFileSync } from "node:fs";

export function openFileLimit(): number | undefined {
  let limits: string;
  try {
    limits = readFileSync("/proc/self/limits", "utf8");
  } catch {
    return undefined;
  }
  const soft = /^Max open files\s+(\S+)/m.exec(limits)?.[1];
  if (soft === undefined) return undefined;
  return soft === "unlimited" ? Number.POSITIVE_INFINITY : Number(soft) || undefined;
}
