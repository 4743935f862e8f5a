import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { UsageError } from "../../src/errors.ts";
import { openJsonFeed } from "../../src/output/json.ts";
import { readText, withTempDir } from "./temp_dir.ts";

Deno.test("a JSON feed writes one array with an item per line, closed at close", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.json");
    const feed = await openJsonFeed(path, { overwrite: true });
    assert.equal(await readText(path), "[", "the array is opened when the feed is");
    await feed.write([{ a: 1 }, { a: 2 }]);
    await feed.write([{ a: 3, b: { c: [true, null] } }]);
    assert.equal(await readText(path), '[\n{"a":1},\n{"a":2},\n{"a":3,"b":{"c":[true,null]}}');
    await feed.close();
    const text = await readText(path);
    assert.equal(text, '[\n{"a":1},\n{"a":2},\n{"a":3,"b":{"c":[true,null]}}\n]\n');
    assert.deepEqual(JSON.parse(text), [{ a: 1 }, { a: 2 }, { a: 3, b: { c: [true, null] } }]);
  });
});

Deno.test("a JSON feed with no items is an empty array", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.json");
    const feed = await openJsonFeed(path, { overwrite: true });
    await feed.write([]);
    await feed.close();
    assert.equal(await readText(path), "[\n]\n");
    assert.deepEqual(JSON.parse(await readText(path)), []);
  });
});

Deno.test("a JSON feed round-trips unicode, quotes, newlines and lone surrogates", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.json");
    const items = [{ text: 'a "quote", a\nnewline, a\ttab', unicode: "café 🕸️ Ωmega", lone: "x\uD800y" }];
    const feed = await openJsonFeed(path, { overwrite: true });
    await feed.write(items);
    await feed.close();
    const text = await readText(path);
    assert.ok(text.includes("café 🕸️ Ωmega"));
    assert.deepEqual(JSON.parse(text), items);
  });
});

Deno.test("a batch with an item JSON cannot hold is refused whole and the file stays valid", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.json");
    const feed = await openJsonFeed(path, { overwrite: true });
    await feed.write([{ n: 1 }]);
    await assert.rejects(feed.write([{ n: 2 }, { n: 10n }]), TypeError);
    await feed.write([{ n: 3 }]);
    await feed.close();
    assert.deepEqual(JSON.parse(await readText(path)), [{ n: 1 }, { n: 3 }]);
  });
});

Deno.test("appending to a non-empty JSON file is refused and leaves the file as it was", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.json");
    await writeFile(path, '[\n{"n":1}\n]\n');
    await assert.rejects(
      openJsonFeed(path, { overwrite: false }),
      (error: unknown) => {
        assert.ok(error instanceof UsageError);
        assert.equal(error.message, `cannot append to existing JSON file ${path}; use -O to overwrite`);
        return true;
      },
    );
    assert.equal(await readText(path), '[\n{"n":1}\n]\n');
  });
});

Deno.test("appending to an empty or missing JSON file writes a fresh array", async () => {
  await withTempDir(async (dir) => {
    const empty = join(dir, "empty.json");
    await writeFile(empty, "");
    for (const path of [empty, join(dir, "missing.json")]) {
      const feed = await openJsonFeed(path, { overwrite: false });
      await feed.write([{ n: 1 }]);
      await feed.close();
      assert.deepEqual(JSON.parse(await readText(path)), [{ n: 1 }]);
    }
  });
});

Deno.test("overwriting a JSON file replaces it", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.json");
    await writeFile(path, '[\n{"old":1},\n{"old":2}\n]\n');
    const feed = await openJsonFeed(path, { overwrite: true });
    await feed.write([{ n: 1 }]);
    await feed.close();
    assert.equal(await readText(path), '[\n{"n":1}\n]\n');
  });
});
