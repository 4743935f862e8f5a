/** A job's stats file, as jobstats.json and the status page read it. */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";

/**
 * The stats the job's crawl last wrote, or null when there are none yet (the first seconds of a job, one that never
 * started) or the file cannot be read as a JSON object.
 */
export async function readJobStats(path: string): Promise<Record<string, unknown> | null> {
  return statsObject(await readFile(path, "utf8").catch(() => ""));
}

/** readJobStats, at once: for the few places that must read before anything else can run (jobs found lost). */
export function readJobStatsSync(path: string): Record<string, unknown> | null {
  try {
    return statsObject(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
}

function statsObject(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}
