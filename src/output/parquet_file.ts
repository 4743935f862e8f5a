/**
 * Turning a Parquet feed's JSON Lines spool into the Parquet file (see parquet.ts): one pass for the columns and
 * their types, then row groups of {@link ROW_GROUP} items read back a group at a time. Its own module, loaded when a
 * Parquet feed closes, so that a crawl writing other formats never loads the Parquet library.
 */
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { fileWriter, ParquetWriter, schemaFromColumnData } from "hyparquet-writer";
import type { Item } from "../spider/types.ts";

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
export async function writeParquet(spool: string, path: string): Promise<void> {
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
