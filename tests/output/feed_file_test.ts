import assert from "node:assert/strict";
import { join } from "node:path";
import { openJsonlFeed } from "../../src/output/jsonl.ts";
import { openXmlFeed } from "../../src/output/xml.ts";
import { readText, withTempDir } from "./temp_dir.ts";

Deno.test("batches written without awaiting land whole and in call order", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.jsonl");
    const feed = await openJsonlFeed(path, { overwrite: true });
    const big = "x".repeat(200_000);
    await Promise.all([
      feed.write([{ n: 1, big }, { n: 2 }]),
      feed.write([{ n: 3 }]),
      feed.write([{ n: 4, big }]),
    ]);
    await feed.close();
    const lines = (await readText(path)).trimEnd().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(lines.map((item) => item.n), [1, 2, 3, 4]);
    assert.equal(lines[3].big, big);
  });
});

Deno.test("a feed's close is idempotent and a write after it is refused", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.xml");
    const feed = await openXmlFeed(path, { overwrite: true });
    const writing = feed.write([{ n: 1 }]);
    const first = feed.close();
    assert.equal(feed.close(), first);
    await assert.rejects(feed.write([{ n: 2 }]), /feed .*items\.xml is closed/);
    await writing;
    await first;
    await feed.close();
    const text = await readText(path);
    assert.equal(text, '<?xml version="1.0" encoding="utf-8"?>\n<items>\n<item><n>1</n></item>\n</items>\n');
  });
});
