/** `netweir crawl -s checkpoint=DIR`: stopped with Ctrl-C, the same command carries on; nothing is fetched twice. */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startCli } from "../helpers/cli.ts";
import { CheckpointFrontier } from "../../src/queue/checkpoint.ts";
import { createLogger } from "../../src/log.ts";
import { Spider } from "../../src/spider/spider.ts";
import { fixture, runCli, withTempDir } from "./_run.ts";

const SPIDER = fixture("shop_spider.ts");

function jsonLines(text: string): Array<Record<string, unknown>> {
  return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
}

/** A crawl of the shop at `site` with a checkpoint in DIR/state, slow enough (one page at a time, 50 ms apart) to stop. */
function pacedCrawl(site: string, dir: string, items: string): string[] {
  const settings = [`checkpoint=${join(dir, "state")}`, "concurrency=1", "min_delay=0.05", "autothrottle=false"];
  return ["crawl", SPIDER, "-a", `site=${site}shop/`, "-o", items, ...settings.flatMap((one) => ["-s", one])];
}

Deno.test("a crawl with a checkpoint stopped by SIGINT carries on when run again: every book once", async () => {
  const books = 40;
  const site = await startFixtureSite({ books });
  try {
    await withTempDir(async (dir) => {
      const items = join(dir, "items.jsonl");
      const stats = join(dir, "stats.json");
      const args = [...pacedCrawl(site.url, dir, items), "--stats-file", stats];
      const first = startCli(args);
      // Stopped part-way: once some books are in the file.
      for (;;) {
        const written = await readFile(items, "utf8").then(jsonLines, () => []);
        if (written.length >= 10) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await first.kill("SIGINT");
      const stopped = await first.wait();
      assert.equal(stopped.code, 130, stopped.stderr);
      const afterFirst = jsonLines(await readFile(items, "utf8")).length;
      assert.ok(afterFirst < books, `the first run was not stopped part-way (${afterFirst} items)`);
      const pagesFetched = site.requests.filter((request) => request.path.startsWith("/shop/")).length;

      const second = await runCli(args);
      assert.equal(second.code, 0, second.stderr);
      const urls = jsonLines(await readFile(items, "utf8")).map((item) => item.url);
      assert.equal(urls.length, books, "every book, across both runs");
      assert.equal(new Set(urls).size, books, "no book twice");
      const fetched = site.requests.filter((request) => request.path.startsWith("/shop/")).map((r) => r.path);
      // At most the page in flight at the stop is fetched again.
      assert.ok(
        fetched.length - new Set(fetched).size <= 1,
        `fetched again: ${fetched.length - new Set(fetched).size}`,
      );
      assert.ok(fetched.length > pagesFetched, "the second run fetched the rest");
      const totals = JSON.parse(await readFile(stats, "utf8"));
      assert.equal(totals.items, books, "the stats carry on from the first run");
      assert.equal(totals.finish_reason, "finished");

      // A third run finds everything done.
      const third = await runCli(args);
      assert.equal(third.code, 0, third.stderr);
      assert.equal(jsonLines(await readFile(items, "utf8")).length, books);
    });
  } finally {
    await site.close();
  }
});

Deno.test("a checkpoint directory that cannot be made exits 2 with one line, and an empty one is refused", async () => {
  await withTempDir(async (dir) => {
    const file = join(dir, "a-file");
    await Deno.writeTextFile(file, "x");
    const result = await runCli(["crawl", SPIDER, "-s", `checkpoint=${join(file, "state")}`]);
    assert.equal(result.code, 2);
    assert.equal(
      result.stderr,
      `netweir: cannot write checkpoint ${join(file, "state")}: a parent of it is not a directory\n`,
    );
    const empty = await runCli(["crawl", SPIDER, "-s", "checkpoint="]);
    assert.equal(empty.code, 2);
    assert.equal(empty.stderr, "netweir: setting checkpoint must not be empty\n");
  });
});

Deno.test("a second crawl on a checkpoint another process holds exits 1 with one line, touching nothing", async () => {
  await withTempDir(async (dir) => {
    class Holder extends Spider {}
    const state = join(dir, "state");
    const held = await CheckpointFrontier.open({
      dir: state,
      spider: new Holder(),
      log: createLogger("error", () => {}),
    });
    try {
      const result = await runCli(["crawl", SPIDER, "-o", join(dir, "items.jsonl"), "-s", `checkpoint=${state}`]);
      assert.equal(result.code, 1);
      assert.match(
        result.stderr,
        /^netweir: checkpoint .*state is in use by another crawl; one crawl per checkpoint directory\n$/,
      );
      assert.equal(existsSync(join(dir, "items.jsonl")), false, "the output file was not created");
    } finally {
      await held.close();
    }
  });
});

Deno.test("a crawl with a checkpoint killed with SIGKILL carries on when run again: every book, none lost", async () => {
  const books = 30;
  const site = await startFixtureSite({ books });
  try {
    await withTempDir(async (dir) => {
      const items = join(dir, "items.jsonl");
      const args = pacedCrawl(site.url, dir, items);
      const first = startCli(args);
      for (;;) {
        const written = await readFile(items, "utf8").then(jsonLines, () => []);
        if (written.length >= 8) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await first.kill("SIGKILL");
      await first.wait();
      const second = await runCli(args);
      assert.equal(second.code, 0, second.stderr);
      const urls = jsonLines(await readFile(items, "utf8")).map((item) => item.url);
      assert.equal(new Set(urls).size, books, "every book, across both runs");
      // A page killed between writing its items and being marked finished is fetched again: at most that one.
      assert.ok(urls.length - books <= 1, `${urls.length - books} books written twice`);
    });
  } finally {
    await site.close();
  }
});

Deno.test("a run on a checkpoint says whether it resumes a crawl or finds it finished", async () => {
  const site = await startFixtureSite({ books: 30 });
  try {
    await withTempDir(async (dir) => {
      const state = join(dir, "state");
      const args = ["crawl", SPIDER, "-a", `site=${site.url}shop/`, "-s", `checkpoint=${state}`];
      const first = await runCli([...args, "-s", "max_items=5", "-s", "concurrency=1"]);
      assert.equal(first.code, 0, first.stderr);
      assert.doesNotMatch(first.stderr, /checkpoint .*: (resuming|the crawl there finished)/);
      const second = await runCli(args);
      assert.equal(second.code, 0, second.stderr);
      assert.match(
        second.stderr,
        new RegExp(`INFO checkpoint ${state}: resuming the crawl, \\d+ requests waiting, \\d+ seen`),
      );
      const third = await runCli(args);
      assert.equal(third.code, 0, third.stderr);
      assert.match(
        third.stderr,
        new RegExp(
          `INFO checkpoint ${state}: the crawl there finished \\(\\d+ requests seen\\); pages already fetched`,
        ),
      );
    });
  } finally {
    await site.close();
  }
});
