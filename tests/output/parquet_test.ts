import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parquetReadObjects } from "hyparquet";
import { parquetFormat } from "../../src/output/parquet.ts";
import { ROW_GROUP } from "../../src/output/parquet_file.ts";
import { withTempDir } from "./temp_dir.ts";

async function readParquet(path: string): Promise<Array<Record<string, unknown>>> {
  const bytes = await readFile(path);
  const file = new Uint8Array(bytes).buffer as ArrayBuffer;
  return await parquetReadObjects({ file });
}

Deno.test("a Parquet feed is written at close, one column per field, typed by its values", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.parquet");
    const feed = await parquetFormat.open(path, { overwrite: true });
    await feed.write([{ title: "A", price: 1.5, inStock: true, tags: ["x"] }]);
    assert.equal(existsSync(path), false, "nothing is a Parquet file before it is finished");
    await feed.write([{ title: "B", price: 2, inStock: false, extra: { k: 1 } }, { title: "C", price: "n/a" }]);
    await feed.close();
    assert.deepEqual(
      await readParquet(path),
      [
        { title: "A", price: 1.5, inStock: true, tags: ["x"], extra: null },
        { title: "B", price: 2, inStock: false, tags: null, extra: { k: 1 } },
        // price held numbers and a string: a JSON column keeps each as it was.
        { title: "C", price: "n/a", inStock: null, tags: null, extra: null },
      ].map((row) => ({ ...row, price: row.price })),
    );
    assert.equal(existsSync(`${path}.spool.jsonl`), false, "the spool is gone");
  });
});

Deno.test("a Parquet feed of more than a row group's items reads back whole and in order; an empty one is valid", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "many.parquet");
    const feed = await parquetFormat.open(path, { overwrite: true });
    const total = ROW_GROUP + 2500;
    for (let start = 0; start < total; start += 500) {
      await feed.write(
        Array.from({ length: 500 }, (_, i) => ({ n: start + i, url: `https://shop.example/${start + i}` })),
      );
    }
    await feed.close();
    const rows = await readParquet(path);
    assert.equal(rows.length, total);
    assert.deepEqual(rows[ROW_GROUP + 1], { n: ROW_GROUP + 1, url: `https://shop.example/${ROW_GROUP + 1}` });

    const empty = join(dir, "empty.parquet");
    const none = await parquetFormat.open(empty, { overwrite: true });
    await none.close();
    assert.deepEqual(await readParquet(empty), []);
  });
});
