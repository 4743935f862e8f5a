/**
 * `netweir queue push --json` as a user runs it: a real cli.ts process against a real redis-server, then a real
 * `netweir crawl --queue` process that fetches the pushed POST requests and hands their meta and cbKwargs to the
 * callback they name. About 8 s (three CLI processes, one of them a crawl).
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { hostList } from "../queue/_layout.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { withRedis } from "../helpers/redis.ts";
import { assertFailed, assertPrinted } from "./_queue_asserts.ts";
import { runCli } from "../helpers/cli.ts";
import { fixture, jsonLines, withTempDir } from "./_run.ts";

const echo = "http://127.0.0.1:8000/echo";

Deno.test("queue push --json reports each bad line with its number and reason, pushes the rest, and exits 2", async () => {
  await withRedis(async (redis) => {
    const lines = [
      JSON.stringify({ url: echo, method: "POST", body: "q=1", callback: "echoed", meta: { page: 1 } }),
      "",
      "{not json",
      JSON.stringify({ url: echo, callback: "constructor" }),
      JSON.stringify({ url: `${echo}?2`, method: "POST", body: "q=2", priority: 3 }),
      JSON.stringify({ url: `${echo}?3`, steps: [{ set_input_files: { selector: "#f", files: "/etc/passwd" } }] }),
      JSON.stringify({ url: "https://user:hunter2@127.0.0.1:8000/", depth: 2 }),
      JSON.stringify({ url: echo, method: "POST", body: "q=1", callback: "echoed", meta: { page: 1 } }),
    ].join("\n");
    const result = await runCli(["queue", "push", "--json", redis.url, "Pushed", "-"], { stdin: lines });
    assert.equal(result.code, 2, result.stderr);
    assert.equal(result.stdout, "pushed 2, skipped 1 (already seen), bad 4\n");
    const errors = result.stderr.trimEnd().split("\n");
    assert.equal(errors.length, 4, result.stderr);
    assert.match(errors[0], /^netweir: line 3 of standard input: not JSON$/);
    assert.match(errors[1], /^netweir: line 4 of standard input: callback "constructor" is reserved/);
    assert.match(errors[2], /^netweir: line 6 of standard input: step 0: set_input_files needs browser_upload_dir$/);
    assert.match(errors[3], /^netweir: line 7 of standard input: unknown field "depth"$/);
    assert.ok(!result.stderr.includes("hunter2"), result.stderr);

    const queued = (await redis.command("LRANGE", hostList("Pushed", 0, "127.0.0.1"), 0, -1)) as string[];
    assert.deepEqual(queued.map((entry) => JSON.parse(entry)), [
      { v: 1, url: echo, method: "POST", body: "q=1", callback: "echoed", meta: { page: 1 } },
    ]);
    const high = (await redis.command("LRANGE", hostList("Pushed", 3, "127.0.0.1"), 0, -1)) as string[];
    assert.deepEqual(high.map((entry) => JSON.parse(entry).body), ["q=2"]);
  });
});

Deno.test("queue push --json --spider holds callbacks to the spider's methods, reading files of JSON Lines", async () => {
  await withRedis(async (redis) => {
    await withTempDir(async (dir) => {
      const file = join(dir, "requests.jsonl");
      await writeFile(
        file,
        `${JSON.stringify({ url: echo, callback: "echoed" })}\n${
          JSON.stringify({ url: echo, callback: "parseBook" })
        }\n`,
      );
      const args = ["queue", "push", "--json", "--spider", fixture("pushed_spider.ts"), redis.url, "Pushed", file];
      const result = await runCli(args);
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stdout, "pushed 1, skipped 0 (already seen), bad 1\n");
      assert.equal(
        result.stderr,
        `netweir: line 2 of ${file}: callback "parseBook" is not a method of the spider (Pushed)\n`,
      );
      // All good: exit 0, no ", bad" part.
      await writeFile(file, JSON.stringify({ url: `${echo}?again`, callback: "echoed" }));
      assertPrinted(await runCli(args), "pushed 1, skipped 0 (already seen)\n");
      // --spider without --json is a mistake in the command.
      const wrong = await runCli(["queue", "push", "--spider", fixture("pushed_spider.ts"), redis.url, "Pushed", echo]);
      assertFailed(wrong, 2, /--spider goes with --json/);
    });
  });
});

Deno.test("a crawl fetches pushed POST requests, and their meta and cbKwargs reach the callback they name", async () => {
  const site = await startFixtureSite({ books: 1 });
  try {
    await withRedis(async (redis) => {
      await withTempDir(async (dir) => {
        const request = (n: number) => ({
          url: `${site.url}echo?n=${n}`,
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: `q=books&n=${n}`,
          callback: "echoed",
          meta: { shelf: "new", page: n },
          cbKwargs: { n, tag: "pushed" },
        });
        const stdin = [request(1), request(2)].map((r) => JSON.stringify(r)).join("\n");
        assertPrinted(
          await runCli(["queue", "push", "--json", redis.url, "Pushed", "-"], { stdin }),
          "pushed 2, skipped 0 (already seen)\n",
        );
        const out = join(dir, "items.jsonl");
        const crawl = await runCli([
          "crawl",
          fixture("pushed_spider.ts"),
          "--queue",
          redis.url,
          "-s",
          "queue_idle=0.5",
          "-O",
          out,
        ]);
        assert.equal(crawl.code, 0, crawl.stderr);
        const items = jsonLines(await readFile(out, "utf8")).sort((a, b) => String(a.url).localeCompare(String(b.url)));
        assert.deepEqual(
          items,
          [1, 2].map((n) => ({
            url: `${site.url}echo?n=${n}`,
            method: "POST",
            body: `q=books&n=${n}`,
            contentType: "application/x-www-form-urlencoded",
            meta: { shelf: "new", page: n },
            cbKwargs: { n, tag: "pushed" },
          })),
        );
      });
    });
  } finally {
    await site.close();
  }
});
