/**
 * inspectPage(page) in a callback (issue 25, item 1, Scrapy's inspect_response): in a terminal the crawl opens the
 * shell's prompt on that page and carries on once it is left; without one it logs one line and does not wait.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { runtime } from "../../src/runtime/mod.ts";
import { CLI_PATH } from "../helpers/cli.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { Terminal } from "../helpers/tmux.ts";
import { fixture, jsonLines, runCli, withTempDir } from "./_run.ts";

const SPIDER = fixture("inspect_spider.ts");

Deno.test("inspectPage in a terminal opens the prompt on the callback's page; the callback goes on after exit()", async () => {
  const site = await startFixtureSite({ books: 1 });
  await withTempDir(async (dir) => {
    const out = join(dir, "items.jsonl");
    const self = runtime.selfCommand(CLI_PATH);
    const term = await Terminal.start([
      self.command,
      ...self.args,
      "crawl",
      SPIDER,
      "-a",
      `site=${site.url}shop/`,
      "-o",
      out,
    ], {
      env: { DISPLAY: "", WAYLAND_DISPLAY: "", BROWSER: "" },
    });
    try {
      const screen = await term.waitFor(/netweir>/);
      assert.match(screen, new RegExp(`page +<200 ${site.url}shop/>`));
      assert.match(screen, /spider +the spider \(Inspected\)/);
      await term.type('page.meta.note = "seen in the shell"');
      await term.waitFor(/^'seen in the shell'$/m);
      await term.type("exit()");
      assert.equal(await term.exited(), 0);
    } finally {
      await term.close();
      await site.close();
    }
    const items = jsonLines(await readFile(out, "utf8"));
    assert.deepEqual(items, [{ title: "All products | Netweir Book Shop", note: "seen in the shell" }]);
  });
});

Deno.test("inspectPage without a terminal logs one line and the crawl goes on without waiting", async () => {
  const site = await startFixtureSite({ books: 1 });
  try {
    const result = await runCli(["crawl", SPIDER, "-a", `site=${site.url}shop/`, "-o", "-"]);
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stderr.split("\n").filter((line) => line.includes("inspectPage("));
    assert.equal(lines.length, 1, result.stderr);
    assert.match(
      lines[0],
      new RegExp(`WARNING inspectPage\\(${site.url}shop/\\): not run in a terminal, so no prompt; the crawl goes on$`),
    );
    assert.deepEqual(jsonLines(result.stdout), [{ title: "All products | Netweir Book Shop", note: null }]);
  } finally {
    await site.close();
  }
});
