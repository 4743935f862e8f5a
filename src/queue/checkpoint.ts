/**
 * The checkpoint store of the frontier (C19): `checkpoint: DIR` keeps the crawl's queue, duplicate filter, held
 * requests and stats in DIR/frontier.db (SQLite), so that the same command, run again after a stop (Ctrl-C, a
 * limit, a crash), carries on where the crawl was: nothing fetched twice that was finished, nothing lost that was
 * not. A crawl that has run to its end finds everything seen and ends at once.
 *
 * Every step that changes the store is one transaction, as each is one script in Redis: a page is released in the
 * same transaction that queues its links, so a crash at any point leaves either the page held (fetched again on
 * the next run) or finished with its links queued. Requests are stored with the request codec the shared queue
 * uses, so the same rule holds: a request's callbacks are the spider's methods, its meta and cbKwargs JSON.
 *
 * What keeps a crawl of millions at its first pages' pace: a yielded link is looked up in the duplicate filter
 * before it is encoded (most links a page yields are seen already, and encoding is most of what one costs); a lease
 * reads the order of the queue (priority, sequence, host) and fetches the text of only the requests it takes; and
 * the numbers of waiting, held and seen requests are counted as they change, from one count when the file is
 * opened, not with `count(*)` over a million rows each time the crawl asks whether it is over.
 */
import { mkdir } from "node:fs/promises";
import { checkWritableDirectory } from "../settings/writable_path.ts";
import { join, resolve } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { inTransaction } from "../sqlite.ts";
import type { Request } from "../spider/request.ts";
import type { Spider } from "../spider/spider.ts";
import type { Logger } from "../spider/types.ts";
import { BadEntryLog } from "./bad_entries.ts";
import { decodeRequest, DEFAULT_ENTRY_LIMITS, encodeRequest, type EntryLimits } from "./codec.ts";
import { fingerprint } from "../spider/fingerprint.ts";
import type { Frontier, FrontierStats, FrontierStatus, Lease, LeaseOptions } from "./frontier.ts";

/** A crawl's stats as the engine writes them (engine/stats.ts's StatsRecord): stored as they are, never read here. */
type StatsRecord = Record<string, unknown>;

/**
 * What the duplicate filter keeps of a request: the first 16 bytes of its fingerprint, as the shared queue keeps
 * them (128 bits; two requests share one with a chance of about 10^-21 in a billion), as a BLOB: a third the size of
 * the hex text.
 */
function filterKey(request: Request): Uint8Array {
  const hex = fingerprint(request);
  const key = new Uint8Array(16);
  for (let i = 0; i < 16; i++) key[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return key;
}

/** How many waiting requests a lease looks at when it passes over busy hosts (as the memory store). */
const LOOKAHEAD = 1000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS seen (fp BLOB PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS queue (seq INTEGER PRIMARY KEY, priority REAL NOT NULL, host TEXT NOT NULL, json TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS queue_order ON queue (priority DESC, seq);
CREATE TABLE IF NOT EXISTS held (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, priority REAL NOT NULL, host TEXT NOT NULL, json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
`;

export interface CheckpointOptions {
  /** The checkpoint directory; created when missing. */
  dir: string;
  spider: Spider;
  log: Logger;
  /** Bounds on a stored request, written or read (the queue_entry_max_* settings; their defaults when absent). */
  limits?: EntryLimits;
}

export class CheckpointFrontier implements Frontier {
  readonly #db: DatabaseSync;
  readonly #spider: Spider;
  readonly #log: Logger;
  readonly #statements: Record<string, StatementSync>;
  #pushed = 0;
  #leased = 0;
  #unqueueable = 0;
  /** Requests in the queue, held and in the duplicate filter: kept as they change (see #recount). */
  #waiting = 0;
  #held = 0;
  #seen = 0;
  readonly #limits: EntryLimits;
  /** Rows that are not requests within the limits (a file edited by hand, or written with larger limits). */
  readonly #badEntries: BadEntryLog;
  #closed = false;

  private constructor(db: DatabaseSync, options: CheckpointOptions) {
    this.#db = db;
    this.#spider = options.spider;
    this.#log = options.log;
    this.#limits = options.limits ?? DEFAULT_ENTRY_LIMITS;
    this.#badEntries = new BadEntryLog(options.log, "the checkpoint");
    db.exec(SCHEMA);
    this.#statements = {
      markSeen: db.prepare("INSERT OR IGNORE INTO seen (fp) VALUES (?)"),
      unsee: db.prepare("DELETE FROM seen WHERE fp = ?"),
      enqueue: db.prepare("INSERT INTO queue (priority, host, json) VALUES (?, ?, ?)"),
      head: db.prepare("SELECT seq, host FROM queue ORDER BY priority DESC, seq LIMIT ?"),
      dequeue: db.prepare("DELETE FROM queue WHERE seq = ? RETURNING priority, host, json"),
      hold: db.prepare("INSERT INTO held (seq, priority, host, json) VALUES (?, ?, ?, ?)"),
      heldOne: db.prepare("SELECT seq, priority, host, json FROM held WHERE id = ?"),
      release: db.prepare("DELETE FROM held WHERE id = ?"),
      requeue: db.prepare("INSERT INTO queue (seq, priority, host, json) VALUES (?, ?, ?, ?)"),
      count: db.prepare(
        "SELECT (SELECT count(*) FROM queue) AS waiting, (SELECT count(*) FROM held) AS held, " +
          "(SELECT count(*) FROM seen) AS seen",
      ),
      getMeta: db.prepare("SELECT value FROM meta WHERE key = ?"),
      setMeta: db.prepare(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      ),
    };
    this.#pushed = Number(this.#meta("pushed") ?? 0);
    this.#leased = Number(this.#meta("leased") ?? 0);
  }

  /** Counts waiting, held and seen requests in the file: once when it is opened, and after a failed transaction. */
  #recount(): void {
    const row = this.#statements.count.get() as { waiting: number; held: number; seen: number };
    this.#waiting = Number(row.waiting);
    this.#held = Number(row.held);
    this.#seen = Number(row.seen);
  }

  /**
   * Opens the checkpoint in `dir`. Requests a previous run held and never finished (it was stopped or died) go back
   * to the queue, in their old places.
   */
  static async open(options: CheckpointOptions): Promise<CheckpointFrontier> {
    const dir = resolve(options.dir);
    // The directory is created, not its parents: one rule for every path a crawl writes (writable_path.ts).
    await checkWritableDirectory(dir, "checkpoint");
    await mkdir(dir, { recursive: true });
    const db = new DatabaseSync(join(dir, "frontier.db"));
    try {
      // One crawl per checkpoint: two would each put back what the other holds. Exclusive locking mode keeps the
      // write lock from the first transaction until the connection closes (the kernel drops it if the process
      // dies), and busy_timeout 0 makes a second crawl fail at once rather than wait.
      // WAL with synchronous NORMAL: a transaction that returned survives the process being killed (it is in the
      // WAL, which the next open replays); only a power cut or an OS crash can lose the last ones, never the file.
      // FULL would add an fsync to every page finished, which on a slow disk caps a crawl at a few hundred pages/s.
      db.exec("PRAGMA busy_timeout = 0; PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = WAL;");
      db.exec("PRAGMA synchronous = NORMAL; BEGIN IMMEDIATE; COMMIT;");
      const frontier = new CheckpointFrontier(db, options);
      const back = frontier.#transaction(() => {
        const rows = db.prepare("SELECT seq, priority, host, json FROM held").all();
        for (const row of rows) frontier.#statements.requeue.run(row.seq, row.priority, row.host, row.json);
        db.exec("DELETE FROM held");
        return rows.length;
      });
      frontier.#recount();
      if (back > 0) options.log.info(`checkpoint: ${back} requests the last run had not finished are queued again`);
      frontier.#logWhereItStands(dir, options.log);
      return frontier;
    } catch (error) {
      db.close();
      if (error instanceof Error && /database is locked|SQLITE_BUSY/i.test(error.message)) {
        throw new Error(`checkpoint ${dir} is in use by another crawl; one crawl per checkpoint directory`);
      }
      throw error;
    }
  }

  /**
   * Says, when the checkpoint holds an earlier run, whether this one carries it on or finds it over: without the line
   * a finished checkpoint looks like a crawl that found nothing (its start requests were all seen before).
   */
  #logWhereItStands(dir: string, log: Logger): void {
    const { waiting, seen } = this.#counts();
    if (seen === 0) return;
    if (waiting > 0) log.info(`checkpoint ${dir}: resuming the crawl, ${waiting} requests waiting, ${seen} seen`);
    else {
      log.info(
        `checkpoint ${dir}: the crawl there finished (${seen} requests seen); pages already fetched are not ` +
          "fetched again: delete the directory to crawl anew",
      );
    }
  }

  #transaction<T>(body: () => T): T {
    try {
      return inTransaction(this.#db, body);
    } catch (error) {
      // Rolled back: the counters may have counted changes that are not in the file.
      if (!this.#closed) this.#recount();
      throw error;
    }
  }

  #meta(key: string): string | undefined {
    const row = this.#statements.getMeta.get(key) as { value: string } | undefined;
    return row?.value;
  }

  /** Adds requests through the duplicate filter; inside a transaction. Returns how many went in. */
  #add(requests: readonly Request[]): number {
    let added = 0;
    for (const request of requests) {
      const key = filterKey(request);
      const fresh = Number(this.#statements.markSeen.run(key).changes) === 1;
      if (!fresh && !request.dontFilter) continue;
      let json: string;
      try {
        json = encodeRequest(this.#spider, request, this.#limits);
      } catch (error) {
        if (!(error instanceof TypeError)) throw error;
        // Not queued, so not seen either: the same request made queueable later goes in.
        if (fresh) this.#statements.unsee.run(key);
        this.#unqueueable++;
        this.#log.error(`cannot keep ${request.url} in the checkpoint: ${error.message}`);
        continue;
      }
      if (fresh) this.#seen++;
      this.#statements.enqueue.run(request.priority, request.host, json);
      this.#waiting++;
      added++;
    }
    this.#pushed += added;
    this.#statements.setMeta.run("pushed", String(this.#pushed));
    return added;
  }

  push(requests: readonly Request[]): Promise<number> {
    return Promise.resolve(this.#transaction(() => this.#add(requests)));
  }

  lease(max: number, options: LeaseOptions = {}): Promise<Lease[]> {
    if (max <= 0) return Promise.resolve([]);
    const skipHost = options.skipHost;
    const leases = this.#transaction(() => {
      // The order alone, read only as far as the lease needs; the requests' text only for those it takes.
      const chosen: number[] = [];
      const order = this.#statements.head.iterate(skipHost ? LOOKAHEAD : max) as Iterable<
        { seq: number; host: string }
      >;
      for (const { seq, host } of order) {
        if (!skipHost?.(host)) chosen.push(seq);
        if (chosen.length >= max) break;
      }
      const out: Lease[] = [];
      for (const seq of chosen) {
        const row = this.#statements.dequeue.get(seq) as { priority: number; host: string; json: string };
        this.#waiting--;
        let request: Request;
        try {
          request = decodeRequest(this.#spider, row.json, this.#limits);
        } catch (error) {
          // Written by this store from a request the codec accepted, unless the file was written some other way.
          if (!(error instanceof TypeError)) throw error;
          this.#badEntries.report(`${error.message}: ${String(row.json).slice(0, 120)}`);
          continue;
        }
        const id = Number(this.#statements.hold.run(seq, row.priority, row.host, row.json).lastInsertRowid);
        this.#held++;
        out.push({ id: String(id), request });
      }
      this.#leased += out.length;
      this.#statements.setMeta.run("leased", String(this.#leased));
      return out;
    });
    return Promise.resolve(leases);
  }

  finish(lease: Lease, yielded: readonly Request[]): Promise<void> {
    this.#transaction(() => {
      this.#add(yielded);
      this.#held -= Number(this.#statements.release.run(Number(lease.id)).changes);
    });
    return Promise.resolve();
  }

  giveBack(leases: readonly Lease[]): Promise<void> {
    this.#transaction(() => {
      for (const lease of leases) {
        const row = this.#statements.heldOne.get(Number(lease.id)) as
          | { seq: number; priority: number; host: string; json: string }
          | undefined;
        if (!row) continue;
        // Its old sequence number puts it back where it was: ahead of everything queued after it.
        this.#statements.requeue.run(row.seq, row.priority, row.host, row.json);
        this.#statements.release.run(Number(lease.id));
        this.#waiting++;
        this.#held--;
      }
    });
    return Promise.resolve();
  }

  ended(): Promise<boolean> {
    const { waiting, held } = this.#counts();
    return Promise.resolve(waiting === 0 && held === 0);
  }

  #counts(): { waiting: number; held: number; seen: number } {
    return { waiting: this.#waiting, held: this.#held, seen: this.#seen };
  }

  status(): Promise<FrontierStatus> {
    const { waiting, held, seen } = this.#counts();
    return Promise.resolve({ waiting, held, processes: 1, seen, queued: this.#pushed });
  }

  /** pushed and leased, over every run of the checkpoint; `dropped.unqueueable` once any were. */
  stats(): FrontierStats {
    const stats: FrontierStats = { pushed: this.#pushed, leased: this.#leased };
    if (this.#badEntries.total > 0) stats.queue_bad = this.#badEntries.total;
    if (this.#unqueueable > 0) stats["dropped.unqueueable"] = this.#unqueueable;
    return stats;
  }

  /** The crawl's stats as the last run left them, to carry on from; undefined on a first run. */
  savedStats(): StatsRecord | undefined {
    const text = this.#meta("stats");
    return text === undefined ? undefined : JSON.parse(text);
  }

  /** Keeps the crawl's stats for the next run. */
  saveStats(record: StatsRecord): void {
    this.#statements.setMeta.run("stats", JSON.stringify(record));
  }

  close(): Promise<void> {
    this.#badEntries.summarise();
    if (!this.#closed) this.#db.close();
    this.#closed = true;
    return Promise.resolve();
  }
}
