/** What the SQLite files of Netweir (serve's job table, a crawl's checkpoint) share. */
import type { DatabaseSync } from "node:sqlite";

/**
 * Runs `body` in one write transaction (BEGIN IMMEDIATE: the write lock is taken at the start, so two writers
 * queue rather than fail halfway), committed when it returns and rolled back when it throws.
 */
export function inTransaction<T>(db: DatabaseSync, body: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = body();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}
