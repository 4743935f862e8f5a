/** How `netweir crawl`'s command line is parsed into what runCrawlCommand receives. */
import assert from "node:assert/strict";
import { CommanderError } from "commander";
import { createProgram } from "../../src/cli/main.ts";
import type { CrawlCommandOptions } from "../../src/cli/crawl_options.ts";

/** Parses `argv` with a crawl that only records its options and ends with `code`. */
async function parseCrawl(argv: string[], code = 0): Promise<{ options: CrawlCommandOptions[]; exitCode: number }> {
  const options: CrawlCommandOptions[] = [];
  let exitCode = -1;
  const context = { out: () => {}, err: () => {}, setExitCode: (value: number) => exitCode = value };
  const program = createProgram(context, {
    runCrawl: (parsed) => {
      options.push(parsed);
      return Promise.resolve(code);
    },
  });
  await program.parseAsync(argv, { from: "user" });
  return { options, exitCode };
}

Deno.test("crawl FILE alone gives no outputs, settings or arguments", async () => {
  const { options } = await parseCrawl(["crawl", "spiders/books.ts"]);
  assert.deepEqual(options, [{ file: "spiders/books.ts", outputs: [], settings: [], args: [] }]);
});

Deno.test("-o and -O feeds keep their command-line order", async () => {
  const { options } = await parseCrawl([
    "crawl",
    "books.ts",
    "-o",
    "a.jsonl",
    "-O",
    "b.csv",
    "--output",
    "c.json",
    "--overwrite-output=d.xml",
  ]);
  assert.deepEqual(options[0].outputs, [
    { path: "a.jsonl", overwrite: false },
    { path: "b.csv", overwrite: true },
    { path: "c.json", overwrite: false },
    { path: "d.xml", overwrite: true },
  ]);
});

Deno.test("the dedicated options become settings after the -s ones, wherever they are written", async () => {
  const { options } = await parseCrawl([
    "crawl",
    "books.ts",
    "--log-level",
    "debug",
    "-s",
    "max_items=500",
    "--queue",
    "redis://127.0.0.1:6379/0",
    "--set",
    "queue=redis://elsewhere:6379/1",
    "--queue-key",
    "books-1",
    "--stats-file",
    "stats.json",
    "-s",
    "per_domain=2",
  ]);
  assert.deepEqual(options[0].settings, [
    "max_items=500",
    "queue=redis://elsewhere:6379/1",
    "per_domain=2",
    "queue=redis://127.0.0.1:6379/0",
    "queue_key=books-1",
    "stats_file=stats.json",
    "log_level=debug",
  ]);
});

Deno.test("--spider and -a arguments are passed on as given", async () => {
  const { options } = await parseCrawl([
    "crawl",
    "books.ts",
    "--spider",
    "quotes",
    "-a",
    "category=travel",
    "--arg",
    "query=a=b",
  ]);
  assert.equal(options[0].spider, "quotes");
  assert.deepEqual(options[0].args, ["category=travel", "query=a=b"]);
});

Deno.test("the crawl's exit code is the command's", async () => {
  assert.equal((await parseCrawl(["crawl", "books.ts"], 1)).exitCode, 1);
  assert.equal((await parseCrawl(["crawl", "books.ts"], 0)).exitCode, 0);
});

Deno.test("-s and -a without a name before '=' are refused as invalid arguments", async () => {
  for (const argv of [["-s", "max_items"], ["-s", "=5"], ["-a", "category"]]) {
    await assert.rejects(parseCrawl(["crawl", "books.ts", ...argv]), (error: unknown) => {
      assert.ok(error instanceof CommanderError);
      assert.equal(error.code, "commander.invalidArgument");
      return true;
    }, argv.join(" "));
  }
});
