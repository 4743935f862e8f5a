/**
 * Judging a crawl's monitors (the `monitors` setting, src/settings/monitor_rules.ts) at its end, from its final
 * stats. The verdict goes in the stats as `monitors`: `{ passed, checked, failed }`, `checked` naming every monitor
 * judged and `failed` one `{ monitor, message }` per monitor that did not hold, so a stats file, `netweir crawl`'s
 * exit status and the job server all read the same answer.
 */
import type { Monitors } from "../settings/monitor_rules.ts";
import type { StatsRecord } from "./stats.ts";

/** One monitor that did not hold: its name (`min_items`, `coverage.title`, ...) and what was found, in words. */
export interface MonitorFailure {
  /** The monitor: a rule's name, or `coverage.FIELD` for one field's coverage. */
  monitor: string;
  /** What was found, against what the rule asks (`title in 5 of 10 items (50%), fewer than 99%`). */
  message: string;
}

/** The verdict on a crawl's monitors, as its stats hold it. */
export interface MonitorReport {
  /** Whether every monitor held. */
  passed: boolean;
  /** The monitors judged, in the order of the rules. */
  checked: string[];
  /** The monitors that did not hold, in the same order. */
  failed: MonitorFailure[];
}

function count(stats: StatsRecord, name: string): number {
  const value = stats[name];
  return typeof value === "number" ? value : 0;
}

/** A share as a percentage for a message: 50%, 99.5%. */
function percent(share: number): string {
  return `${Math.round(share * 1000) / 10}%`;
}

/** Judges `rules` against a crawl's final stats. */
export function judgeMonitors(rules: Monitors, stats: StatsRecord): MonitorReport {
  const checked: string[] = [];
  const failed: MonitorFailure[] = [];
  const judge = (monitor: string, problem: string | undefined) => {
    checked.push(monitor);
    if (problem !== undefined) failed.push({ monitor, message: problem });
  };
  const items = count(stats, "items");
  if (rules.min_items !== undefined) {
    judge("min_items", items < rules.min_items ? `${items} items written, fewer than ${rules.min_items}` : undefined);
  }
  if (rules.max_error_rate !== undefined) {
    const errors = count(stats, "errors");
    const requests = count(stats, "requests");
    const rate = requests === 0 ? 0 : errors / requests;
    judge(
      "max_error_rate",
      rate > rules.max_error_rate
        ? `${errors} errors in ${requests} requests (${percent(rate)}), more than ${percent(rules.max_error_rate)}`
        : undefined,
    );
  }
  if (rules.max_dropped !== undefined) {
    const dropped = count(stats, "items_dropped");
    judge(
      "max_dropped",
      dropped > rules.max_dropped ? `${dropped} items dropped, more than ${rules.max_dropped}` : undefined,
    );
  }
  for (const { field, min } of rules.coverage ?? []) {
    const have = count(stats, `items_with_${field}`);
    // A rule that cannot be shown to hold fails: a nightly crawl that wrote nothing has no title coverage to show.
    const problem = items === 0
      ? `no items written to measure ${field} on`
      : have / items < min
      ? `${field} in ${have} of ${items} items (${percent(have / items)}), fewer than ${percent(min)}`
      : undefined;
    judge(`coverage.${field}`, problem);
  }
  if (rules.schema !== undefined) {
    const invalid = count(stats, "items_invalid");
    const allowed = rules.max_invalid ?? 0;
    const fields = Object.keys(stats).filter((name) => name.startsWith("items_invalid_"))
      .map((name) => `${name.slice("items_invalid_".length)}: ${count(stats, name)}`).join(", ");
    judge(
      "schema",
      invalid > allowed ? `${invalid} items broke the schema (${fields}), more than ${allowed}` : undefined,
    );
  }
  return { passed: failed.length === 0, checked, failed };
}
