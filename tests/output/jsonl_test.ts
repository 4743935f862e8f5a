import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { openJsonlFeed } from "../../src/output/jsonl.ts";
import { readText, withTempDir } from "./temp_dir.ts";

Deno.test("a JSONL feed writes one JSON object per line in the order of the batches", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.jsonl");
    const feed = await openJsonlFeed(path, { overwrite: true });
    await feed.write([{ title: "A", price: 1 }, { title: "B", price: 2 }]);
    // The bytes are in the file as soon as write resolves, before close.
    assert.equal(await readText(path), '{"title":"A","price":1}\n{"title":"B","price":2}\n');
    await feed.write([{ title: "C", tags: ["x"] }]);
    await feed.close();
    assert.equal(
      await readText(path),
      '{"title":"A","price":1}\n{"title":"B","price":2}\n{"title":"C","tags":["x"]}\n',
    );
  });
});

Deno.test("a JSONL feed keeps unicode, quotes and newlines in values, one item per line", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.jl");
    const items = [
      { text: 'He said "hi",\nthen left', emoji: "🕷️ ünïcödé 漢字", sep: "\u2028" },
      { nested: { a: [1, null, { b: "c" }] }, empty: "" },
    ];
    const feed = await openJsonlFeed(path, { overwrite: true });
    await feed.write(items);
    await feed.close();
    const text = await readText(path);
    assert.ok(text.includes("🕷️ ünïcödé 漢字"), "non-ASCII is written as UTF-8, not escaped");
    const lines = text.split("\n");
    assert.equal(lines.pop(), "", "the file ends with a newline");
    assert.deepEqual(lines.map((line) => JSON.parse(line)), items);
  });
});

Deno.test("a JSONL feed with no items leaves an empty file", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.jsonl");
    const feed = await openJsonlFeed(path, { overwrite: true });
    await feed.write([]);
    await feed.close();
    assert.equal(await readText(path), "");
  });
});

Deno.test("appending to a JSONL file adds lines after the existing ones", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.jsonl");
    await writeFile(path, '{"n":1}\n');
    const feed = await openJsonlFeed(path, { overwrite: false });
    await feed.write([{ n: 2 }]);
    await feed.close();
    assert.equal(await readText(path), '{"n":1}\n{"n":2}\n');
  });
});

Deno.test("appending to a JSONL file whose last line is unterminated starts a new line", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.jsonl");
    await writeFile(path, '{"n":1}');
    const feed = await openJsonlFeed(path, { overwrite: false });
    await feed.write([{ n: 2 }]);
    await feed.close();
    assert.equal(await readText(path), '{"n":1}\n{"n":2}\n');
  });
});

Deno.test("overwriting a JSONL file replaces what was in it", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.jsonl");
    await writeFile(path, '{"old":true}\n{"old":true}\n');
    const feed = await openJsonlFeed(path, { overwrite: true });
    await feed.write([{ n: 1 }]);
    await feed.close();
    assert.equal(await readText(path), '{"n":1}\n');
  });
});
