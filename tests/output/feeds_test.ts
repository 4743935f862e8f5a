import assert from "node:assert/strict";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { UsageError } from "../../src/errors.ts";
import { FeedSet, parseFeedTarget } from "../../src/output/feeds.ts";
import { spiderPlaceholders } from "../../src/output/placeholders.ts";
import { parseCsv } from "./csv_parse.ts";
import { readText, recordingLogger, withTempDir } from "./temp_dir.ts";
import { parseXmlStrict } from "./xml_check.ts";

function usageError(pattern: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof UsageError, `expected a UsageError, got ${error}`);
    assert.match(error.message, pattern);
    return true;
  };
}

Deno.test("an output path's format comes from its extension in any case", () => {
  assert.deepEqual(parseFeedTarget("out/items.jsonl", false), {
    path: "out/items.jsonl",
    format: "jsonl",
    overwrite: false,
  });
  assert.equal(parseFeedTarget("items.JL", true).format, "jsonl");
  assert.equal(parseFeedTarget("items.Json", false).format, "json");
  assert.equal(parseFeedTarget("a.b/items.CSV", false).format, "csv");
  assert.equal(parseFeedTarget("items.xml", true).overwrite, true);
});

Deno.test("an output path with an unknown extension or none is refused with the supported ones listed", () => {
  const supported = /\.jsonl, \.jl, \.json, \.csv, \.xml, \.parquet/;
  assert.throws(() => parseFeedTarget("items.txt", false), usageError(/items\.txt.*\.txt/));
  assert.throws(() => parseFeedTarget("items.txt", false), usageError(supported));
  assert.throws(() => parseFeedTarget("items", false), usageError(/items has no extension.*\.jsonl/));
  assert.equal(parseFeedTarget("items.parquet", false).format, "parquet");
  assert.throws(() => parseFeedTarget("", false), UsageError);
});

Deno.test("cloud output paths are parsed by the key's extension, any case of scheme", () => {
  assert.deepEqual(parseFeedTarget("s3://bucket/items.jsonl", false), {
    path: "s3://bucket/items.jsonl",
    format: "jsonl",
    overwrite: false,
  });
  assert.equal(parseFeedTarget("gs://bucket/items.csv", false).format, "csv");
  assert.equal(parseFeedTarget("S3://bucket/x.json", true).format, "json");
});

Deno.test("a feed set writes every page's items to every feed and logs each at close", async () => {
  await withTempDir(async (dir) => {
    const log = recordingLogger();
    const paths = ["a.jsonl", "a.json", "a.csv", "a.xml"].map((name) => join(dir, name));
    const feeds = await FeedSet.open(paths.map((path) => parseFeedTarget(path, true)), log);
    assert.deepEqual(feeds.paths, paths);
    await feeds.write([{ title: "A", n: 1 }]);
    await feeds.write([]);
    await feeds.write([{ title: 'B, "b"', n: 2 }, { title: "C", n: 3 }]);
    await feeds.close();
    const items = [{ title: "A", n: 1 }, { title: 'B, "b"', n: 2 }, { title: "C", n: 3 }];
    const [jsonl, json, csv, xml] = await Promise.all(paths.map(readText));
    assert.deepEqual(jsonl.trimEnd().split("\n").map((line) => JSON.parse(line)), items);
    assert.deepEqual(JSON.parse(json), items);
    assert.deepEqual(parseCsv(csv), [["title", "n"], ["A", "1"], ['B, "b"', "2"], ["C", "3"]]);
    assert.equal(parseXmlStrict(xml).children.filter((child) => typeof child === "object").length, 3);
    assert.deepEqual(
      log.lines.filter((line) => line.level === "info").map((line) => line.message),
      [
        `Stored jsonl feed (3 items) in: ${paths[0]}`,
        `Stored json feed (3 items) in: ${paths[1]}`,
        `Stored csv feed (3 items) in: ${paths[2]}`,
        `Stored xml feed (3 items) in: ${paths[3]}`,
      ],
    );
  });
});

Deno.test("-o appends to existing feeds and -O truncates them", async () => {
  await withTempDir(async (dir) => {
    const jsonl = join(dir, "items.jsonl");
    const csv = join(dir, "items.csv");
    await writeFile(jsonl, '{"n":0}\n');
    await writeFile(csv, "n\r\n0\r\n");
    let feeds = await FeedSet.open([parseFeedTarget(jsonl, false), parseFeedTarget(csv, false)]);
    await feeds.write([{ n: 1 }]);
    await feeds.close();
    assert.equal(await readText(jsonl), '{"n":0}\n{"n":1}\n');
    assert.equal(await readText(csv), "n\r\n0\r\n1\r\n");
    feeds = await FeedSet.open([parseFeedTarget(jsonl, true), parseFeedTarget(csv, true)]);
    await feeds.write([{ n: 2 }]);
    await feeds.close();
    assert.equal(await readText(jsonl), '{"n":2}\n');
    assert.equal(await readText(csv), "n\r\n2\r\n");
  });
});

Deno.test("opening feeds fails early, naming the path, when its directory does not exist", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "missing", "items.jsonl");
    await assert.rejects(
      FeedSet.open([parseFeedTarget(path, true)]),
      usageError(new RegExp(`^cannot write feed ${path}: directory ${join(dir, "missing")} does not exist$`)),
    );
  });
});

Deno.test("opening a feed on a directory or under a file is refused with the path named", async () => {
  await withTempDir(async (dir) => {
    const folder = join(dir, "folder.json");
    await mkdir(folder);
    await assert.rejects(FeedSet.open([parseFeedTarget(folder, true)]), usageError(/folder\.json: it is a directory/));
    const file = join(dir, "file");
    await writeFile(file, "x");
    const under = join(file, "items.csv");
    await assert.rejects(
      FeedSet.open([parseFeedTarget(under, false)]),
      usageError(/^cannot write feed .*file\/items\.csv/),
    );
  });
});

Deno.test("one refused feed stops all of them before any file is created or truncated", async () => {
  await withTempDir(async (dir) => {
    const keep = join(dir, "keep.jsonl");
    await writeFile(keep, '{"precious":true}\n');
    const json = join(dir, "old.json");
    await writeFile(json, "[\n]\n");
    const targets = [
      parseFeedTarget(keep, true),
      parseFeedTarget(join(dir, "new.csv"), true),
      parseFeedTarget(json, false),
    ];
    await assert.rejects(
      FeedSet.open(targets),
      new UsageError(`cannot append to existing JSON file ${json}; use -O to overwrite`),
    );
    assert.equal(await readText(keep), '{"precious":true}\n');
    assert.deepEqual((await readdir(dir)).sort(), ["keep.jsonl", "old.json"]);
  });
});

Deno.test("the same output path given twice is refused", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.jsonl");
    await assert.rejects(
      FeedSet.open([parseFeedTarget(path, false), parseFeedTarget(join(dir, ".", "x", "..", "items.jsonl"), true)]),
      usageError(/items\.jsonl is given more than once/),
    );
    assert.deepEqual(await readdir(dir), []);
  });
});

Deno.test("closing while writes are in flight waits for them and finishes every file", async () => {
  await withTempDir(async (dir) => {
    const paths = ["a.jsonl", "a.json", "a.csv", "a.xml"].map((name) => join(dir, name));
    const feeds = await FeedSet.open(paths.map((path) => parseFeedTarget(path, true)));
    const batches = Array.from(
      { length: 20 },
      (_, page) => Array.from({ length: 25 }, (_, i) => ({ page, i, text: `item ${page}.${i} ✓ "q", x\ny` })),
    );
    // Pages finish concurrently and a signal closes the feeds before any write has been awaited.
    const writes = batches.map((batch) => feeds.write(batch));
    const closed = feeds.close();
    assert.equal(feeds.close(), closed, "close is idempotent: the same promise");
    await Promise.all([...writes, closed]);
    await feeds.close();
    const all = batches.flat();
    const [jsonl, json, csv, xml] = await Promise.all(paths.map(readText));
    assert.deepEqual(jsonl.trimEnd().split("\n").map((line) => JSON.parse(line)), all, "batches whole, in order");
    assert.deepEqual(JSON.parse(json), all);
    const rows = parseCsv(csv);
    assert.equal(rows.length, all.length + 1);
    assert.deepEqual(rows.at(-1), ["19", "24", 'item 19.24 ✓ "q", x\ny']);
    assert.equal(parseXmlStrict(xml).children.filter((child) => typeof child === "object").length, all.length);
  });
});

Deno.test("writing after close is refused rather than lost silently", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.json");
    const feeds = await FeedSet.open([parseFeedTarget(path, true)]);
    await feeds.write([{ n: 1 }]);
    const closed = feeds.close();
    await assert.rejects(feeds.write([{ n: 2 }]), /closed/);
    await closed;
    assert.deepEqual(JSON.parse(await readText(path)), [{ n: 1 }]);
  });
});

Deno.test("a feed set with no feeds accepts writes and closes", async () => {
  const feeds = await FeedSet.open([]);
  await feeds.write([{ n: 1 }]);
  await feeds.close();
  assert.deepEqual(feeds.paths, []);
});

Deno.test("placeholders fill in local feed paths too, and the same time goes to every feed", async () => {
  await withTempDir(async (dir) => {
    const placeholders = spiderPlaceholders({ site: "shop", count: 3 }, "books", new Date("2026-12-01T10:20:30Z"));
    const feeds = await FeedSet.open(
      [parseFeedTarget(join(dir, "%(name)s-%(time)s.jsonl"), true), parseFeedTarget(join(dir, "%(site)s.csv"), true)],
      undefined,
      { placeholders },
    );
    assert.deepEqual(feeds.paths, [join(dir, "books-2026-12-01T10-20-30.jsonl"), join(dir, "shop.csv")]);
    await feeds.write([{ a: 1 }]);
    await feeds.close();
    assert.deepEqual((await readdir(dir)).sort(), ["books-2026-12-01T10-20-30.jsonl", "shop.csv"]);
    await assert.rejects(
      FeedSet.open([parseFeedTarget(join(dir, "%(count)s.jsonl"), true)], undefined, { placeholders }),
      (e: Error) => e instanceof UsageError && /unknown placeholder %\(count\)s/.test(e.message),
      "only string attributes are placeholders",
    );
  });
});
