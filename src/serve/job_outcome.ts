/**
 * How a job whose process has exited ended. `netweir crawl` exits with 1 both when its crawl failed and when it ran
 * to its end but a monitor of its items did not hold; the stats file it wrote last tells the two apart: a crawl that
 * finished carries a finish reason and a monitors verdict that did not pass, and fetched something (one that fetched
 * nothing exits 1 for that first, whatever its monitors say).
 */
import type { ProcessExit } from "./process_group.ts";
import type { JobOutcome } from "./types.ts";

/** The monitors' verdict in a job's stats (src/engine/monitors.ts's report), when the crawl had monitors. */
export interface MonitorVerdict {
  passed: boolean;
  checked: string[];
  failed: { monitor: string; message: string }[];
}

/** The verdict in `stats`, or null when the crawl had no monitors (or left no stats). */
export function monitorVerdict(stats: Record<string, unknown> | null): MonitorVerdict | null {
  const monitors = stats?.monitors as Partial<MonitorVerdict> | undefined;
  if (typeof monitors !== "object" || monitors === null || typeof monitors.passed !== "boolean") return null;
  const failed = Array.isArray(monitors.failed)
    ? monitors.failed.filter((one) => typeof one?.monitor === "string").map((one) => ({
      monitor: String(one.monitor),
      message: String(one.message ?? ""),
    }))
    : [];
  const checked = Array.isArray(monitors.checked) ? monitors.checked.map(String) : [];
  return { passed: monitors.passed, checked, failed };
}

/** Whether the stats say the crawl ran to its end, fetched pages, and only its monitors failed. */
function onlyMonitorsFailed(stats: Record<string, unknown> | null): boolean {
  const verdict = monitorVerdict(stats);
  const pages = typeof stats?.pages === "number" ? stats.pages : 0;
  return verdict !== null && !verdict.passed && typeof stats?.finish_reason === "string" && pages > 0;
}

/** The outcome of a job whose process exited so, with the stats it left (null when it left none). */
export function jobOutcome(exit: ProcessExit, cancelled: boolean, stats: Record<string, unknown> | null): JobOutcome {
  if (cancelled) return "cancelled";
  if (exit.code === 0) return "finished";
  return exit.code === 1 && exit.signal === null && onlyMonitorsFailed(stats) ? "monitor_failed" : "failed";
}
