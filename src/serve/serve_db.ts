/** A connection to DIR/jobs.db as the service's stores open it: durable commits, readers beside a writer. */
import { DatabaseSync } from "node:sqlite";

/**
 * Opens `path` and makes `schema` (CREATE ... IF NOT EXISTS). WAL lets readers (listjobs) run beside a write;
 * synchronous=FULL makes each commit durable when it returns (in WAL mode NORMAL may lose the last ones on power loss);
 * a writer on another connection is waited for up to 5 s. The connection is closed again if any of it fails.
 */
export function openServeDb(path: string, schema: string): DatabaseSync {
  const db = new DatabaseSync(path);
  try {
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;");
    db.exec(schema);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
