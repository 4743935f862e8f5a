import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parquetReadObjects } from "hyparquet";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startCli } from "../helpers/cli.ts";
import { waitUntil } from "../helpers/wait.ts";
import { fixture, runCli, withTempDir } from "./_run.ts";

const SPIDER = fixture("shop_spider.ts");

function jsonLines(text: string): Array<Record<string, unknown>> {
  return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
}

Deno.test("netweir crawl writes every item to each -o file, by extension", async () => {
  const site = await startFixtureSite({ books: 30 });
  try {
    await withTempDir(async (dir) => {
      const result = await runCli([
        "crawl",
        SPIDER,
        "-a",
        `site=${site.url}shop/`,
        "-o",
        join(dir, "items.jsonl"),
        "-o",
        join(dir, "items.json"),
        "-o",
        join(dir, "items.csv"),
        "-o",
        join(dir, "items.xml"),
        "-o",
        join(dir, "items.parquet"),
        "-s",
        "min_delay=0",
        "--stats-file",
        join(dir, "stats.json"),
      ]);
      assert.equal(result.code, 0, result.stderr);
      const lines = jsonLines(await readFile(join(dir, "items.jsonl"), "utf8"));
      assert.equal(lines.length, 30);
      assert.equal(JSON.parse(await readFile(join(dir, "items.json"), "utf8")).length, 30);
      const csv = (await readFile(join(dir, "items.csv"), "utf8")).trim().split("\r\n");
      assert.equal(csv[0], "title,price,url");
      assert.equal(csv.length, 31);
      assert.equal(((await readFile(join(dir, "items.xml"), "utf8")).match(/<item>/g) ?? []).length, 30);
      const parquet = new Uint8Array(await readFile(join(dir, "items.parquet"))).buffer as ArrayBuffer;
      const rows = await parquetReadObjects({ file: parquet });
      assert.deepEqual(Object.keys(rows[0]), ["title", "price", "url"]);
      assert.equal(new Set(rows.map((row) => row.url)).size, 30);
      const stats = JSON.parse(await readFile(join(dir, "stats.json"), "utf8"));
      assert.equal(stats.finish_reason, "finished");
      assert.equal(stats.items, 30);
      assert.match(result.stderr, /crawl finished \{/);
    });
  } finally {
    await site.close();
  }
});

Deno.test("-o appends to an existing file and -O overwrites it", async () => {
  const site = await startFixtureSite({ books: 5 });
  try {
    await withTempDir(async (dir) => {
      const out = join(dir, "items.jsonl");
      await writeFile(out, '{"old":true}\n');
      const args = ["crawl", SPIDER, "-a", `site=${site.url}shop/`];
      assert.equal((await runCli([...args, "-o", out])).code, 0);
      assert.equal(jsonLines(await readFile(out, "utf8")).length, 6);
      assert.equal((await runCli([...args, "-O", out])).code, 0);
      assert.equal(jsonLines(await readFile(out, "utf8")).length, 5);
    });
  } finally {
    await site.close();
  }
});

Deno.test("bad settings and arguments exit 2 with one line naming what was wrong", async () => {
  await withTempDir(async (dir) => {
    const out = join(dir, "items.jsonl");
    const cases: Array<[string[], RegExp]> = [
      [["-s", "max_itemz=5"], /^netweir: unknown setting max_itemz \(did you mean max_items\?\)\n$/],
      [["-s", "concurrency=many"], /^netweir: setting concurrency must be a whole number, not "many"\n$/],
      [["-s", "concurrency=0"], /^netweir: setting concurrency must be at least 1\n$/],
      [["-s", "min_delay=5", "-s", "max_delay=1"], /^netweir: min_delay \(5\) is above max_delay \(1\)\n$/],
      [["-s", "profile=turbo"], /^netweir: unknown profile "turbo"/],
      [["-s", "proxy_rotation=per_request"], /^netweir: proxy_rotation needs proxies\n$/],
      [
        ["-s", "browser_path=/no/such/chromium"],
        /^netweir: browser_path \/no\/such\/chromium is not an executable file\n$/,
      ],
      [["--queue-key", ""], /^netweir: setting queue_key must not be empty\n$/],
      [["--queue", ""], /^netweir: setting queue must not be empty\n$/],
      [["--queue", "redis://:secret@127.0.0.1:1/0", "--queue-key", "two words"], /^netweir: .*queue key/],
      [["-a", "_private=1"], /^netweir: spider argument _private: /],
      [["-a", "allowed_domains=x"], /^netweir: spider argument allowed_domains: /],
      [["-a", "parse=x"], /^netweir: spider argument parse: /],
      [["-a", "2fast=x"], /^netweir: spider argument 2fast: /],
      [["-o", join(dir, "items.parquet2")], /^netweir: .*items\.parquet2/],
      [["-o", join(dir, "missing", "items.jsonl")], /^netweir: .*missing/],
    ];
    for (const [extra, expected] of cases) {
      const result = await runCli(["crawl", SPIDER, "-o", out, ...extra]);
      assert.equal(result.code, 2, `${extra.join(" ")}: ${result.stderr}`);
      assert.match(result.stderr, expected, extra.join(" "));
    }
  });
});

Deno.test("a crawl that cannot fetch anything ends with exit 1, one line saying so, and an empty, valid file", async () => {
  await withTempDir(async (dir) => {
    const out = join(dir, "items.json");
    const result = await runCli(["crawl", SPIDER, "-O", out, "-s", "retries=0"]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /\nnetweir: nothing was fetched: every request failed \(network: 1\)[^\n]*\n$/);
    assert.deepEqual(JSON.parse(await readFile(out, "utf8")), []);
    assert.match(result.stderr, /"errors":1/);
  });
});

Deno.test("SIGINT stops a crawl cleanly: files are valid, stats say shutdown, exit 130", async () => {
  const site = await startFixtureSite({ books: 20 });
  try {
    await withTempDir(async (dir) => {
      const json = join(dir, "items.json");
      const xml = join(dir, "items.xml");
      const stats = join(dir, "stats.json");
      const lines = join(dir, "items.jsonl");
      const crawl = startCli([
        "crawl",
        SPIDER,
        "-a",
        `site=${site.url}shop/`,
        "-a",
        "slow=1",
        "-O",
        json,
        "-O",
        xml,
        "-O",
        lines,
        "--stats-file",
        stats,
        "-s",
        "timeout=120",
      ]);
      // The shop is done long before /hang answers. A feed has each page's items in the file before the page counts
      // as done, so 20 lines in the JSON Lines feed (written batch by batch) means all 20 items are in: interrupt then.
      await waitUntil(
        "/hang requested and 20 items written",
        async () =>
          site.hits("/hang") > 0 &&
          (await readFile(lines, "utf8").catch(() => "")).split("\n").filter((line) => line !== "").length === 20,
        60_000,
      );
      await crawl.kill("SIGINT");
      const result = await crawl.wait();
      assert.equal(result.code, 130, result.stderr);
      const items = JSON.parse(await readFile(json, "utf8"));
      assert.equal(items.length, 20);
      assert.match(await readFile(xml, "utf8"), /<\/items>\n$/);
      assert.equal(JSON.parse(await readFile(stats, "utf8")).finish_reason, "shutdown");
    });
  } finally {
    await site.close();
  }
});

Deno.test("a second SIGINT stops at once", async () => {
  const site = await startFixtureSite({ books: 1 });
  try {
    await withTempDir(async (dir) => {
      {
        const blocker = join(dir, "blocking.ts");
        await writeFile(
          blocker,
          `import { Spider } from ${JSON.stringify(new URL("../../mod.ts", import.meta.url).href)};
export class Stuck extends Spider {
  override startUrls = [${JSON.stringify(site.url + "echo")}];
  override async parse() {
    console.error("in callback");
    await new Promise(() => setTimeout(() => {}, 1e9)); // a callback that never returns
  }
}
`,
        );
        const crawl = startCli(["crawl", blocker, "-O", join(dir, "out.jsonl")]);
        await crawl.waitFor(/in callback/);
        await crawl.kill("SIGINT");
        await crawl.waitFor(/stopping: shutdown/);
        await crawl.kill("SIGINT");
        const result = await crawl.wait();
        // By the signal itself, which a shell shows as status 130.
        assert.equal(result.signal, "SIGINT", `code ${result.code}: ${result.stderr}`);
        assert.match(result.stderr, /second SIGINT: stopping at once/);
      }
    });
  } finally {
    await site.close();
  }
});

Deno.test("SIGTERM stops a crawl cleanly too, with exit 143", async () => {
  const site = await startFixtureSite({ books: 3 });
  try {
    await withTempDir(async (dir) => {
      const csv = join(dir, "items.csv");
      const crawl = startCli(["crawl", SPIDER, "-a", `site=${site.url}shop/`, "-a", "slow=1", "-O", csv]);
      // Interrupted once the three books are in the file (items are written as pages finish) and /hang is waiting.
      const rowsSoFar = () => readFile(csv, "utf8").then((text) => text.split("\r\n").length - 1, () => 0);
      while (site.hits("/hang") === 0 || await rowsSoFar() < 4) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await crawl.kill("SIGTERM");
      const result = await crawl.wait();
      assert.equal(result.code, 143, result.stderr);
      const rows = (await readFile(csv, "utf8")).trim().split("\r\n");
      assert.equal(rows[0], "title,price,url");
      assert.equal(rows.length, 4);
    });
  } finally {
    await site.close();
  }
});

Deno.test("progress=true shows a live progress line with pages, rate, items, waiting and errors", async () => {
  const site = await startFixtureSite({ books: 2 });
  try {
    const result = await runCli([
      "crawl",
      SPIDER,
      "-a",
      `site=${site.url}slow?ms=2500`,
      "-s",
      "progress=true",
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /pages \d+ \(\d+\.\d\/s\) {2}items \d+ {2}waiting \d+ {2}errors \d+/);
    const quiet = await runCli(["crawl", SPIDER, "-a", `site=${site.url}slow?ms=1500`]);
    assert.doesNotMatch(quiet.stderr, /\(\d+\.\d\/s\)/, "no progress line when standard error is not a terminal");
  } finally {
    await site.close();
  }
});

Deno.test("an error thrown by the spider's own code while crawling exits 1 with one line", async () => {
  await withTempDir(async (dir) => {
    const file = join(dir, "broken.ts");
    await writeFile(
      file,
      `import { Spider } from ${JSON.stringify(new URL("../../mod.ts", import.meta.url).href)};
export class Broken extends Spider {
  override async *start() {
    yield* [];
    throw new TypeError("start is broken");
  }
}
`,
    );
    const result = await runCli(["crawl", file]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /^netweir: crawl failed: start is broken\n$/m);
    assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
  });
});
