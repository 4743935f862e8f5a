/**
 * Deltafetch (C21): `deltafetch: PATH` remembers, in an SQLite file, the requests whose pages yielded items, and in
 * later runs drops such requests when a callback yields them again (counted under `dropped` as `deltafetch`). A
 * crawl run every night then fetches only what is new: its listing pages, which yield no items, are fetched every
 * time and find the new item pages; the item pages it has scraped before are not fetched again.
 *
 * A request is known by its fingerprint, or by its meta `deltafetch_key` when it has one (to treat different URLs
 * of one thing as the same, say). Start requests are never dropped: they are where a crawl looks for what is new.
 * The crawl opens the file when it starts and closes it when it ends; this module is loaded only then, so a crawl
 * without deltafetch never loads SQLite.
 */
import { resolve } from "node:path";
import { checkWritableFile } from "../settings/writable_path.ts";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { fingerprint } from "../spider/fingerprint.ts";
import type { Request } from "../spider/request.ts";

/** The key a request is remembered by: meta `deltafetch_key` (any JSON value, as text), else its fingerprint. */
export function deltafetchKey(request: Request): string {
  const key = request.meta.deltafetch_key;
  if (key === undefined || key === null) return fingerprint(request);
  return typeof key === "string" ? key : JSON.stringify(key);
}

export class Deltafetch {
  readonly #db: DatabaseSync;
  readonly #has: StatementSync;
  readonly #add: StatementSync;

  private constructor(db: DatabaseSync) {
    this.#db = db;
    this.#db.exec(
      "CREATE TABLE IF NOT EXISTS scraped (key TEXT PRIMARY KEY, url TEXT NOT NULL, first_seen TEXT NOT NULL) " +
        "WITHOUT ROWID",
    );
    this.#has = db.prepare("SELECT 1 FROM scraped WHERE key = ?");
    this.#add = db.prepare("INSERT OR IGNORE INTO scraped (key, url, first_seen) VALUES (?, ?, ?)");
  }

  /** Opens the file at `path`, creating it when it is missing; its directory must exist (see writable_path.ts). */
  static async open(path: string): Promise<Deltafetch> {
    const file = resolve(path);
    await checkWritableFile(file, "deltafetch");
    const db = new DatabaseSync(file);
    try {
      // WAL: a crawl killed mid-write loses at most its last records, never the file.
      db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
      return new Deltafetch(db);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** Whether a request's page yielded items in this run or an earlier one. */
  has(request: Request): boolean {
    return this.#has.get(deltafetchKey(request)) !== undefined;
  }

  /** Remembers a request whose page yielded items. */
  add(request: Request): void {
    this.#add.run(deltafetchKey(request), request.url, new Date().toISOString());
  }

  close(): void {
    this.#db.close();
  }
}
