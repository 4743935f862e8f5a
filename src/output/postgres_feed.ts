/**
 * Items in a PostgreSQL table (`-o postgresql://user:pass@host:port/db?table=NAME&key=FIELD`): one output every
 * process of a shared crawl can write to. As with a file, a page's items are in the table (committed) when `write`
 * resolves, before the page counts as done. With `key`, each item is upserted on that field of the item, so a page
 * fetched again after a process died replaces its rows rather than adding to them; without it, rows are appended.
 *
 * The table is made when missing: `key text PRIMARY KEY, item jsonb, updated_at timestamptz` with a key, `id
 * bigserial PRIMARY KEY, item jsonb, created_at timestamptz` without. The client (`postgres` from npm) is loaded only
 * when such an output is given.
 */
import { QueueError, UsageError } from "../errors.ts";
import { maskSecrets, maskUrl } from "../log.ts";
import type { Item } from "../spider/types.ts";
import type { Feed } from "./feed.ts";
import { retryWrite } from "./retry_write.ts";
import { importPackage } from "../runtime/optional_module.ts";

/** How long a page's write is tried again while the server is unreachable (upserts only: they are idempotent). */
const RETRY_FOR_MS = 60_000;
const CONNECT_TIMEOUT_S = 10;

/** A table name (optionally `schema.table`) or a field name: plain identifiers only, so none needs quoting rules. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Whether an output path names a PostgreSQL server. */
export function isPostgresPath(path: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(path);
}

/** A PostgreSQL output: the server's URL without Netweir's parameters, the table and the upsert key. */
export interface PostgresTarget {
  /** The connection URL, `table` and `key` taken out. */
  url: string;
  /** `[schema, table]` or `[table]`. */
  table: string[];
  /** The item field to upsert on, or undefined to append. */
  key?: string;
}

/** Parses `-o postgresql://...?table=NAME[&key=FIELD]`; a UsageError (exit 2) names what is wrong, password masked. */
export function parsePostgresTarget(path: string): PostgresTarget {
  const masked = maskUrl(path);
  const parsed = URL.parse(path);
  if (parsed === null || parsed.hostname === "") {
    throw new UsageError(
      `output ${masked} is not a PostgreSQL URL; expected postgresql://user@host:port/db?table=NAME`,
    );
  }
  const table = parsed.searchParams.get("table");
  if (!table) throw new UsageError(`output ${masked} names no table; add ?table=NAME (and &key=FIELD to upsert)`);
  const parts = table.split(".");
  if (parts.length > 2 || !parts.every((part) => IDENTIFIER.test(part))) {
    throw new UsageError(`output ${masked}: table ${JSON.stringify(table)} is not a plain name (letters, digits, _)`);
  }
  const key = parsed.searchParams.get("key") ?? undefined;
  if (key !== undefined && !IDENTIFIER.test(key)) {
    throw new UsageError(`output ${masked}: key ${JSON.stringify(key)} is not a plain field name (letters, digits, _)`);
  }
  parsed.searchParams.delete("table");
  parsed.searchParams.delete("key");
  return { url: parsed.href, table: parts, key };
}

/** Whether a failure may pass by itself (the server restarting, a connection cut) rather than recur. */
function isTransient(error: unknown): boolean {
  const code = (error as { code?: string })?.code ?? "";
  return /^(ECONNREFUSED|ECONNRESET|EPIPE|CONNECTION_|CONNECT_TIMEOUT|57P0[1-3]|08)/.test(code);
}

// deno-lint-ignore no-explicit-any
type Sql = any;

/** A feed writing each page's items to one table, in one statement (so all or none of them). */
export class PostgresFeed implements Feed {
  /** The URL with its password masked, for the crawl's closing lines. */
  readonly path: string;
  readonly #sql: Sql;
  readonly #target: PostgresTarget;
  readonly #writes = new Set<Promise<void>>();
  #closing: Promise<void> | undefined;

  private constructor(sql: Sql, target: PostgresTarget, path: string) {
    this.#sql = sql;
    this.#target = target;
    this.path = maskUrl(path);
  }

  /** Connects, and makes the table if it is missing: a QueueError (exit 1) says why it could not. */
  static async open(path: string): Promise<PostgresFeed> {
    const target = parsePostgresTarget(path);
    const { default: postgres } = await importPackage<{ default: typeof import("postgres") }>("npm:postgres@3.4.10");
    const sql = postgres(target.url, {
      max: 4,
      connect_timeout: CONNECT_TIMEOUT_S,
      onnotice: () => {},
      // Plain JSON in, plain JSON out: no type guessing on the way.
      transform: { undefined: null },
    });
    const feed = new PostgresFeed(sql, target, path);
    try {
      await feed.#createTable();
    } catch (error) {
      await sql.end({ timeout: 1 }).catch(() => {});
      throw new QueueError(`cannot use ${feed.path}: ${describe(error)}`, { cause: error });
    }
    return feed;
  }

  async #createTable(): Promise<void> {
    const table = this.#sql(this.#target.table.join("."));
    if (this.#target.key !== undefined) {
      await this.#sql`CREATE TABLE IF NOT EXISTS ${table} (
        key text PRIMARY KEY, item jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`;
    } else {
      await this.#sql`CREATE TABLE IF NOT EXISTS ${table} (
        id bigserial PRIMARY KEY, item jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`;
    }
  }

  write(items: Item[]): Promise<void> {
    if (this.#closing) return Promise.reject(new Error(`${this.path} is closed; items not written`));
    if (items.length === 0) return Promise.resolve();
    let written: Promise<void>;
    try {
      written = this.#target.key === undefined ? this.#insert(items) : this.#upsert(this.#rowsByKey(items));
    } catch (error) {
      return Promise.reject(error);
    }
    this.#writes.add(written);
    written.finally(() => this.#writes.delete(written)).catch(() => {});
    return written;
  }

  /**
   * The page's rows by key, the last item of a key winning (one statement may not update a row twice). An item
   * without the key, or with one that is not a string or a number, is an error naming it: its row has no key.
   */
  #rowsByKey(items: Item[]): Array<{ key: string; item: string }> {
    const field = this.#target.key!;
    const rows = new Map<string, string>();
    for (const item of items) {
      const value = (item as Record<string, unknown>)[field];
      if (typeof value !== "string" && typeof value !== "number") {
        throw new TypeError(
          `an item has no string or number ${field} to upsert on in ${this.path}: ${
            JSON.stringify(item).slice(0, 200)
          }`,
        );
      }
      rows.set(String(value), JSON.stringify(item));
    }
    return [...rows].map(([key, item]) => ({ key, item }));
  }

  async #upsert(rows: Array<{ key: string; item: string }>): Promise<void> {
    const table = this.#sql(this.#target.table.join("."));
    const keys = rows.map((row) => row.key);
    const values = rows.map((row) => row.item);
    // Idempotent, so tried again while the server is unreachable.
    await this.#retrying(() =>
      this.#sql`INSERT INTO ${table} (key, item)
        SELECT k, v::jsonb FROM unnest(${keys}::text[], ${values}::text[]) AS page(k, v)
        ON CONFLICT (key) DO UPDATE SET item = EXCLUDED.item, updated_at = now()`
    );
  }

  async #insert(items: Item[]): Promise<void> {
    const table = this.#sql(this.#target.table.join("."));
    const values = items.map((item) => JSON.stringify(item));
    // Not tried again: a statement whose answer was lost may have run, and appending twice would double the page.
    await this.#retrying(
      () => this.#sql`INSERT INTO ${table} (item) SELECT v::jsonb FROM unnest(${values}::text[]) AS page(v)`,
      0,
    );
  }

  #retrying(statement: () => Promise<unknown>, forMs = RETRY_FOR_MS): Promise<void> {
    return retryWrite(statement, {
      transient: isTransient,
      forMs,
      fail: (error) => new QueueError(`cannot write items to ${this.path}: ${describe(error)}`, { cause: error }),
    });
  }

  close(): Promise<void> {
    this.#closing ??= Promise.allSettled([...this.#writes]).then(() => this.#sql.end({ timeout: 5 }));
    return this.#closing;
  }
}

/** One line for a client or server error, any URL in it masked. */
function describe(error: unknown): string {
  const message = (error as Error)?.message ?? String(error);
  return maskSecrets(message.split("\n")[0]);
}
