import assert from "node:assert/strict";
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { fixture, runCli, withTempDir } from "./_run.ts";

const SPIDER = fixture("shop_spider.ts");
const OLD_ITEMS = '{"old":true}\n';

async function exists(path: string): Promise<boolean> {
  return await stat(path).then(() => true, () => false);
}

for (const setting of ["warc", "har", "deltafetch", "stats_file", "cache", "checkpoint"]) {
  Deno.test(`a ${setting} path in a missing directory exits 2 before -O truncates the old items`, async () => {
    const site = await startFixtureSite({ books: 3 });
    try {
      await withTempDir(async (dir) => {
        const items = join(dir, "items.jsonl");
        await writeFile(items, OLD_ITEMS);
        const missing = join(dir, "missing");
        const path = join(missing, setting === "warc" ? "a.warc.gz" : `a.${setting}`);
        const result = await runCli([
          "crawl",
          SPIDER,
          "-a",
          `site=${site.url}shop/`,
          "-O",
          items,
          "-s",
          `${setting}=${path}`,
        ]);
        assert.equal(result.code, 2, result.stderr);
        assert.equal(result.stderr, `netweir: cannot write ${setting} ${path}: directory ${missing} does not exist\n`);
        assert.equal(await readFile(items, "utf8"), OLD_ITEMS);
        // Nothing was fetched and no directory was made on the way.
        assert.equal(site.requests.length, 0);
        assert.equal(await exists(missing), false);
      });
    } finally {
      await site.close();
    }
  });
}

Deno.test("a path setting naming an existing directory where a file goes exits 2 before anything is written", async () => {
  await withTempDir(async (dir) => {
    const items = join(dir, "items.jsonl");
    await writeFile(items, OLD_ITEMS);
    const result = await runCli(["crawl", SPIDER, "-O", items, "-s", `har=${dir}`]);
    assert.equal(result.code, 2, result.stderr);
    assert.equal(result.stderr, `netweir: cannot write har ${dir}: it is a directory\n`);
    assert.equal(await readFile(items, "utf8"), OLD_ITEMS);
  });
});

Deno.test("the same path for a feed and an archive is refused before either is opened", async () => {
  await withTempDir(async (dir) => {
    const items = join(dir, "items.json");
    await writeFile(items, "[]\n");
    const result = await runCli(["crawl", SPIDER, "-O", items, "-s", `har=${items}`]);
    assert.equal(result.code, 2, result.stderr);
    assert.equal(
      result.stderr,
      `netweir: ${items} is both the feed ${items} and the har file; give each its own path\n`,
    );
    assert.equal(await readFile(items, "utf8"), "[]\n");
  });
});

Deno.test("a file inside the checkpoint directory the crawl makes is accepted: the crawl makes that directory", async () => {
  const site = await startFixtureSite({ books: 2 });
  try {
    await withTempDir(async (dir) => {
      const state = join(dir, "state");
      const result = await runCli([
        "crawl",
        SPIDER,
        "-a",
        `site=${site.url}shop/`,
        "-s",
        `checkpoint=${state}`,
        "-s",
        `deltafetch=${join(state, "delta.db")}`,
      ]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal((await stat(join(state, "delta.db"))).isFile(), true);
    });
  } finally {
    await site.close();
  }
});

Deno.test("a checkpoint and a cache directory are created when their parent exists", async () => {
  const site = await startFixtureSite({ books: 2 });
  try {
    await withTempDir(async (dir) => {
      const result = await runCli([
        "crawl",
        SPIDER,
        "-a",
        `site=${site.url}shop/`,
        "-s",
        `checkpoint=${join(dir, "state")}`,
        "-s",
        `cache=${join(dir, "cache")}`,
        "-s",
        `deltafetch=${join(dir, "seen.db")}`,
      ]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal((await stat(join(dir, "state"))).isDirectory(), true);
      assert.equal((await stat(join(dir, "cache"))).isDirectory(), true);
      assert.equal((await stat(join(dir, "seen.db"))).isFile(), true);
    });
  } finally {
    await site.close();
  }
});
