import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { openCsvFeed } from "../../src/output/csv.ts";
import { parseCsv } from "./csv_parse.ts";
import { readText, recordingLogger, withTempDir } from "./temp_dir.ts";

Deno.test("a CSV feed takes its header from the first item's keys and writes CRLF rows", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.csv");
    const feed = await openCsvFeed(path, { overwrite: true });
    await feed.write([{ title: "A", price: 1 }]);
    assert.equal(await readText(path), "title,price\r\nA,1\r\n", "header and row are in the file after write");
    await feed.write([{ price: 2, title: "B" }, { title: "C", price: 3.5 }]);
    await feed.close();
    assert.equal(await readText(path), "title,price\r\nA,1\r\nB,2\r\nC,3.5\r\n");
  });
});

Deno.test("CSV columns missing from an item are empty and extra keys are dropped with one warning", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.csv");
    const log = recordingLogger();
    const feed = await openCsvFeed(path, { overwrite: true, log });
    await feed.write([{ a: 1, b: 2 }, { b: 3 }, { a: 4, b: 5, c: 6 }]);
    await feed.write([{ a: 7, d: 8 }, { a: null, b: undefined }]);
    await feed.close();
    assert.equal(await readText(path), "a,b\r\n1,2\r\n,3\r\n4,5\r\n7,\r\n,\r\n");
    const warnings = log.lines.filter((line) => line.level === "warning");
    assert.equal(warnings.length, 1, "warned once, not once per item");
    assert.ok(warnings[0].message.includes(path));
    assert.deepEqual(warnings[0].data, { keys: ["c"], columns: ["a", "b"] });
  });
});

Deno.test("CSV values with quotes, commas and newlines are quoted and read back the same", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.csv");
    const feed = await openCsvFeed(path, { overwrite: true });
    const tricky = 'She said "hi, there"\nand\r\nleft';
    await feed.write([{ "a,key": tricky, plain: "no quoting", quote: '"', comma: ",", space: " padded " }]);
    await feed.close();
    const text = await readText(path);
    assert.equal(
      text,
      '"a,key",plain,quote,comma,space\r\n' +
        '"She said ""hi, there""\nand\r\nleft",no quoting,"""",",", padded \r\n',
    );
    assert.deepEqual(parseCsv(text), [
      ["a,key", "plain", "quote", "comma", "space"],
      [tricky, "no quoting", '"', ",", " padded "],
    ]);
  });
});

Deno.test("CSV cells hold nested values as JSON text and keep unicode", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.csv");
    const feed = await openCsvFeed(path, { overwrite: true });
    await feed.write([{ name: "Zoë 🕷️ 東京", tags: ["a", "b"], meta: { n: 1, ok: true }, flag: false, none: null }]);
    await feed.close();
    const rows = parseCsv(await readText(path));
    assert.deepEqual(rows, [
      ["name", "tags", "meta", "flag", "none"],
      ["Zoë 🕷️ 東京", '["a","b"]', '{"n":1,"ok":true}', "false", ""],
    ]);
    assert.deepEqual(JSON.parse(rows[1][2]), { n: 1, ok: true });
  });
});

Deno.test("a CSV row of one empty field is written as a quoted empty string", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.csv");
    const feed = await openCsvFeed(path, { overwrite: true });
    await feed.write([{ only: "x" }, { only: "" }]);
    await feed.close();
    assert.equal(await readText(path), 'only\r\nx\r\n""\r\n');
    assert.deepEqual(parseCsv(await readText(path)), [["only"], ["x"], [""]]);
  });
});

Deno.test("a CSV feed with no items leaves an empty file", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.csv");
    const feed = await openCsvFeed(path, { overwrite: true });
    await feed.close();
    assert.equal(await readText(path), "");
  });
});

Deno.test("appending to a non-empty CSV file writes no header and follows the file's own columns", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.csv");
    await writeFile(path, '"price, EUR",title\r\n1,A\r\n');
    const log = recordingLogger();
    const feed = await openCsvFeed(path, { overwrite: false, log });
    await feed.write([{ title: "B", "price, EUR": 2, extra: "x" }]);
    await feed.close();
    assert.equal(await readText(path), '"price, EUR",title\r\n1,A\r\n2,B\r\n');
    assert.equal(log.lines.filter((line) => line.level === "warning").length, 1);
  });
});

Deno.test("appending to a CSV file whose last line is unterminated starts a new row", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.csv");
    await writeFile(path, "a,b\n1,2");
    const feed = await openCsvFeed(path, { overwrite: false });
    await feed.write([{ a: 3, b: 4 }]);
    await feed.close();
    assert.deepEqual(parseCsv(await readText(path)), [["a", "b"], ["1", "2"], ["3", "4"]]);
  });
});

Deno.test("appending to an empty CSV file writes the header", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.csv");
    await writeFile(path, "");
    const feed = await openCsvFeed(path, { overwrite: false });
    await feed.write([{ a: 1 }]);
    await feed.close();
    assert.equal(await readText(path), "a\r\n1\r\n");
  });
});

Deno.test("overwriting a CSV file writes a new header from the new items", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.csv");
    await writeFile(path, "old,columns\r\n1,2\r\n");
    const feed = await openCsvFeed(path, { overwrite: true });
    await feed.write([{ x: "y" }]);
    await feed.close();
    assert.equal(await readText(path), "x\r\ny\r\n");
  });
});
