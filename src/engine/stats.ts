/**
 * A crawl's stats (C14): counters, per-status and per-drop-reason tallies, start and finish time and the finish
 * reason. Keys are snake_case, as the stats file and the job server show them.
 */
import type { MonitorReport } from "./monitors.ts";

/** A crawl's stats as JSON: what `runSpider` returns, the stats file holds and the job server shows. */
export type StatsRecord = Record<string, unknown>;

/** A crawl's live stats: counters that the crawl adds to as it goes (`crawl.stats`), and `toJSON()` for the record. */
export class Stats {
  readonly #counters = new Map<string, number>();
  readonly #statuses = new Map<number, number>();
  readonly #dropped = new Map<string, number>();
  /** When the crawl started. */
  readonly startTime: Date = new Date();
  /** When it finished; null while it runs. */
  finishTime: Date | null = null;
  /** Why it finished (`finished`, `shutdown`, `max_items`, ...); null while it runs. */
  finishReason: string | null = null;
  /** The verdict on the crawl's monitors, set at its end when it has any (src/engine/monitors.ts). */
  monitors: MonitorReport | null = null;

  /**
   * Starts from the counters of a record a previous run of the same crawl left (a checkpoint): counters, statuses
   * and drops carry on; times and the finish reason are this run's own.
   */
  carryOn(saved: StatsRecord): void {
    const own = new Set(["start_time", "finish_time", "finish_reason", "elapsed_seconds", "status", "dropped"]);
    for (const [name, value] of Object.entries(saved)) {
      if (!own.has(name) && typeof value === "number" && Number.isFinite(value)) this.inc(name, value);
    }
    for (const [code, count] of Object.entries((saved.status ?? {}) as Record<string, unknown>)) {
      if (typeof count === "number") this.#statuses.set(Number(code), (this.#statuses.get(Number(code)) ?? 0) + count);
    }
    for (const [reason, count] of Object.entries((saved.dropped ?? {}) as Record<string, unknown>)) {
      if (typeof count === "number") this.#dropped.set(reason, (this.#dropped.get(reason) ?? 0) + count);
    }
  }

  /** Adds to a counter (`requests`, `pages`, `items`, ...), which starts at 0. */
  inc(name: string, by = 1): void {
    this.#counters.set(name, (this.#counters.get(name) ?? 0) + by);
  }

  /** A counter's value; 0 for one never added to. */
  get(name: string): number {
    return this.#counters.get(name) ?? 0;
  }

  /** Counts a response with this HTTP status. */
  status(code: number): void {
    this.#statuses.set(code, (this.#statuses.get(code) ?? 0) + 1);
  }

  /** Counts a request left out, by why: offsite, depth, trap, robots, max_pages_per_domain, middleware, ... */
  dropped(reason: string): void {
    this.#dropped.set(reason, (this.#dropped.get(reason) ?? 0) + 1);
  }

  /** How many requests were left out for this reason. */
  droppedCount(reason: string): number {
    return this.#dropped.get(reason) ?? 0;
  }

  /** Seconds since the crawl started (or until it finished). */
  elapsed(now: number = Date.now()): number {
    return ((this.finishTime?.getTime() ?? now) - this.startTime.getTime()) / 1000;
  }

  /**
   * The whole record, with extra counters (the frontier's) merged in; an extra counter named `dropped.REASON` is
   * added to `dropped` under REASON (requests a store dropped before the crawl saw them).
   */
  toJSON(extra: Record<string, number> = {}): StatsRecord {
    const record: StatsRecord = {
      start_time: this.startTime.toISOString(),
      finish_time: this.finishTime?.toISOString() ?? null,
      finish_reason: this.finishReason,
      elapsed_seconds: Math.round(this.elapsed() * 1000) / 1000,
    };
    for (const name of ["requests", "pages", "items", "items_dropped", "errors", "retries", "bytes"]) {
      record[name] = this.get(name);
    }
    for (const [name, value] of [...this.#counters].sort()) if (!(name in record)) record[name] = value;
    const dropped = new Map(this.#dropped);
    // JSON.stringify calls toJSON with the property's name: a string is not extra counters.
    if (typeof extra === "object") {
      for (const [name, value] of Object.entries(extra)) {
        if (name.startsWith("dropped.")) {
          const reason = name.slice("dropped.".length);
          dropped.set(reason, (dropped.get(reason) ?? 0) + value);
        } else record[name] = value;
      }
    }
    record.status = Object.fromEntries([...this.#statuses].sort(([a], [b]) => a - b).map(([k, v]) => [String(k), v]));
    record.dropped = Object.fromEntries([...dropped].sort());
    if (this.monitors !== null) record.monitors = this.monitors;
    return record;
  }
}
