/**
 * Parquet feeds (C18): `-o items.parquet`. A Parquet file has its schema and row groups' index at its end, so it is
 * written when the feed closes: until then each page's items go to a JSON Lines spool beside it (PATH.spool.jsonl,
 * one write per page, as any feed), and the close turns the spool into the Parquet file and deletes it.
 *
 * Columns are the items' fields, in the order first met. A column whose values are all booleans is BOOLEAN, all
 * numbers DOUBLE, all strings STRING, and anything else (objects, arrays, mixed types) JSON; a field an item lacks is
 * null. Rows go in groups of {@link ROW_GROUP} items, read back from the spool a group at a time, so closing a large
 * feed never holds all of it in memory.
 *
 * A process that is killed leaves the spool and no Parquet file: unlike the text formats, Parquet cannot be read
 * until it is finished.
 */
import { createReadStream } from "node:fs";
import { open, rm } from "node:fs/promises";
import { createInterface } from "node:readline";
import { fileWriter, ParquetWriter, schemaFromColumnData } from "hyparquet-writer";
import type { Item } from "../spider/types.ts";
import type { Feed, FeedFormat, FeedOptions } from "./feed.ts";

/** Items per row group. */
export const ROW_GROUP = 10_000;

type ColumnType = "BOOLEAN" | "DOUBLE" | "STRING" | "JSON";

function typeOf(value: unknown): ColumnType {
  if (typeof value === "boolean") return "BOOLEAN";
  if (typeof value === "number") return "DOUBLE";
  if (typeof value === "string") return "STRING";
  return "JSON";
}

/** Reads the spool's items, a line at a time. */
async function* spooled(path: string): AsyncGenerator<Item> {
  const lines = createInterface({ input: createReadStream(path, { encoding: "utf8" }), crlfDelay: Infinity });
  for await (const line of lines) if (line !== "") yield JSON.parse(line) as Item;
}

/** The columns and their types, from one pass over the spool. */
async function columnsOf(path: string): Promise<Map<string, ColumnType>> {
  const columns = new Map<string, ColumnType>();
  // Columns met with a value so far: one met only as null takes the type of its first value.
  const valued = new Set<string>();
  for await (const item of spooled(path)) {
    for (const [name, value] of Object.entries(item)) {
      if (value === null || value === undefined) {
        if (!columns.has(name)) columns.set(name, "STRING");
        continue;
      }
      const type = typeOf(value);
      if (!valued.has(name)) columns.set(name, type);
      else if (columns.get(name) !== type) columns.set(name, "JSON");
      valued.add(name);
    }
  }
  return columns;
}

/** Writes the spool at `spool` as a Parquet file at `path`. */
async function writeParquet(spool: string, path: string): Promise<void> {
  const columns = await columnsOf(spool);
  const names = [...columns.keys()];
  const build = (rows: Item[]) =>
    names.map((name) => ({
      name,
      type: columns.get(name)!,
      data: rows.map((row) => row[name] ?? null),
    }));
  const writer = new ParquetWriter({
    writer: fileWriter(path),
    schema: schemaFromColumnData({ columnData: build([]) }),
    createdBy: "netweir",
  });
  let rows: Item[] = [];
  for await (const item of spooled(spool)) {
    rows.push(item);
    if (rows.length === ROW_GROUP) {
      await writer.write({ columnData: build(rows), rowGroupSize: ROW_GROUP });
      rows = [];
    }
  }
  if (rows.length > 0) await writer.write({ columnData: build(rows), rowGroupSize: ROW_GROUP });
  writer.finish();
}

class ParquetFeed implements Feed {
  readonly path: string;
  readonly #spool: string;
  readonly #handle: Awaited<ReturnType<typeof open>>;
  #tail: Promise<void> = Promise.resolve();
  #closing: Promise<void> | undefined;

  constructor(path: string, spool: string, handle: Awaited<ReturnType<typeof open>>) {
    this.path = path;
    this.#spool = spool;
    this.#handle = handle;
  }

  write(items: Item[]): Promise<void> {
    if (this.#closing) return Promise.reject(new Error(`feed ${this.path} is closed`));
    const text = items.map((item) => JSON.stringify(item) + "\n").join("");
    const written = this.#tail.then(async () => {
      await this.#handle.write(text);
    });
    this.#tail = written.catch(() => {});
    return written;
  }

  close(): Promise<void> {
    this.#closing ??= this.#tail.then(async () => {
      await this.#handle.close();
      await writeParquet(this.#spool, this.path);
      await rm(this.#spool, { force: true });
    });
    return this.#closing;
  }
}

export const parquetFormat: FeedFormat = {
  name: "parquet",
  extensions: [".parquet"],
  // A Parquet file is finished by its footer: items cannot be added to one.
  appendable: false,
  label: "Parquet",
  async open(path: string, _options: FeedOptions): Promise<Feed> {
    const spool = `${path}.spool.jsonl`;
    return new ParquetFeed(path, spool, await open(spool, "w"));
  },
};
