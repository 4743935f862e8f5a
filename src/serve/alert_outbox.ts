/**
 * Alerts not yet delivered, kept in DIR/jobs.db (table `alerts`, on the job table's connection) so that a webhook server
 * that is down when a job ends, or a service killed while it waits to try again, loses nothing: the alert is there at
 * the next start, with the number of tries it has had and when to try next. A row is deleted once its webhook has
 * taken it, or when it is given up (a 4xx, its age, or the bound on how many wait), which webhooks.ts logs.
 *
 * The webhook URL is kept in clear (it has to be called), in the same file as the jobs' settings, which hold it too:
 * jobs.db is made 0600 by JobStore before this opens it.
 */
import type { DatabaseSync, SQLOutputValue } from "node:sqlite";
import { inTransaction } from "../sqlite.ts";
import { openServeDb } from "./serve_db.ts";

/** An alert waiting to be delivered. Times are epoch milliseconds. */
export interface QueuedAlert {
  /** Never reused: also the alert's Idempotency-Key, so a receiver can drop a second copy. */
  seq: number;
  url: string;
  /** The JSON body, as it is sent. */
  body: string;
  /** How the alert is named in log lines: "job books-1 ended". */
  what: string;
  createdAt: number;
  /** Tries made so far (by this service or one before it). */
  tries: number;
  nextAt: number;
  lastError: string | null;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS alerts (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    url TEXT NOT NULL,
    body TEXT NOT NULL,
    what TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    tries INTEGER NOT NULL DEFAULT 0,
    next_at INTEGER NOT NULL,
    last_error TEXT
  );
  CREATE INDEX IF NOT EXISTS alerts_due ON alerts (next_at, seq);
`;

const COLUMNS = "seq, url, body, what, created_at, tries, next_at, last_error";

function toAlert(row: Record<string, SQLOutputValue>): QueuedAlert {
  return {
    seq: Number(row.seq),
    url: String(row.url),
    body: String(row.body),
    what: String(row.what),
    createdAt: Number(row.created_at),
    tries: Number(row.tries),
    nextAt: Number(row.next_at),
    lastError: row.last_error === null ? null : String(row.last_error),
  };
}

/** The undelivered alerts of one service. Open it only while holding the dir's lock, after JobStore. */
export class AlertOutbox {
  readonly #db: DatabaseSync;

  readonly #ownConnection: boolean;

  /**
   * Opens the table in the SQLite file `path` (":memory:" for a queue that dies with the process), or on a connection
   * already open (JobStore's, so that a job's end and its alert are one transaction), which close() then leaves open.
   */
  constructor(where: string | DatabaseSync) {
    this.#ownConnection = typeof where === "string";
    if (typeof where === "string") {
      this.#db = openServeDb(where, SCHEMA);
    } else {
      this.#db = where;
      this.#db.exec(SCHEMA);
    }
  }

  /** Keeps an alert, due now; on disk when this returns. */
  add(alert: { url: string; body: string; what: string }, at: number): QueuedAlert {
    const row = this.#db.prepare(
      `INSERT INTO alerts (url, body, what, created_at, next_at) VALUES (?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
    ).get(alert.url, alert.body, alert.what, at, at);
    return toAlert(row!);
  }

  /** The alerts due at `now`, oldest first, at most `limit`. */
  due(now: number, limit: number): QueuedAlert[] {
    return this.#db.prepare(`SELECT ${COLUMNS} FROM alerts WHERE next_at <= ? ORDER BY next_at, seq LIMIT ?`)
      .all(now, limit).map(toAlert);
  }

  /** When the next alert is due, or undefined when none waits. */
  nextDue(): number | undefined {
    const row = this.#db.prepare("SELECT MIN(next_at) AS at FROM alerts").get();
    return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
  }

  /** Records a failed try and when to make the next. False when the alert is not there (dropped meanwhile). */
  failed(seq: number, why: string, nextAt: number): boolean {
    const result = this.#db.prepare("UPDATE alerts SET tries = tries + 1, last_error = ?, next_at = ? WHERE seq = ?")
      .run(why, nextAt, seq);
    return Number(result.changes) === 1;
  }

  /** Forgets an alert: delivered, or given up. False when it was not there. */
  remove(seq: number): boolean {
    return Number(this.#db.prepare("DELETE FROM alerts WHERE seq = ?").run(seq).changes) === 1;
  }

  /**
   * Takes out and returns the alerts past the bounds: those created before `oldestAt`, then the oldest beyond
   * `maxCount`. One transaction, so the caller logs exactly what was dropped.
   */
  dropBeyond(oldestAt: number, maxCount: number): { tooOld: QueuedAlert[]; tooMany: QueuedAlert[] } {
    return inTransaction(this.#db, () => {
      const tooOld = this.#db.prepare(`DELETE FROM alerts WHERE created_at < ? RETURNING ${COLUMNS}`).all(oldestAt)
        .map(toAlert);
      const tooMany = this.#db.prepare(
        `DELETE FROM alerts WHERE seq IN (SELECT seq FROM alerts ORDER BY seq DESC LIMIT -1 OFFSET ?) ` +
          `RETURNING ${COLUMNS}`,
      ).all(maxCount).map(toAlert);
      return { tooOld, tooMany };
    });
  }

  /** Makes every alert due at `now` at the latest (a start tries each once at once). Returns how many wait. */
  dueBy(now: number): number {
    this.#db.prepare("UPDATE alerts SET next_at = ? WHERE next_at > ?").run(now, now);
    return this.count();
  }

  /** How many alerts wait. */
  count(): number {
    return Number(this.#db.prepare("SELECT COUNT(*) AS n FROM alerts").get()?.n ?? 0);
  }

  /** Closes the connection if this outbox opened it. */
  close(): void {
    if (this.#ownConnection && this.#db.isOpen) this.#db.close();
  }
}
