/**
 * A log that lives: a running job's log gets a start line, a progress line in Scrapy's words every log_interval
 * seconds while it runs, and the final stats; `netweir crawl` writes the same progress lines when its standard error
 * is not a terminal. Real crawls against the fixture site, real `netweir serve`.
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startCli } from "../helpers/cli.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { E2E_PROJECT, poll, type ServeProcess, startServe, stopQuietly } from "./_e2e_service.ts";
import { withTempDir } from "./_setup.ts";

/** Scrapy's LogStats words. */
const PROGRESS = /Crawled (\d+) pages \(at (\d+) pages\/min\), scraped (\d+) items \(at (\d+) items\/min\)/g;

/**
 * ScrapydWeb's LogParser's DATAS_PATTERN (logparser/common.py), as it finds progress lines: a new line, Scrapy's time
 * ("2019-01-01 00:00:01", a space, not ISO's T), anything, then the words.
 */
const LOGPARSER_DATAS = new RegExp(
  String.raw`\n(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}) .+?` +
    String.raw`Crawled (\d+) pages \(at (\d+) pages/min\), scraped (\d+) items \(at (\d+) items/min\)`,
  "g",
);

Deno.test("a running job's log grows while it runs: start line, progress lines in Scrapy's words, final stats", async () => {
  const site = await startFixtureSite({ books: 10 });
  let service: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      service = await startServe(join(dir, "serve"));
      const gate = join(dir, "gate");
      const scheduled = await service.post("schedule.json", {
        project: "shop",
        spider: "books",
        jobid: "live-1",
        site: site.url,
        gate,
        setting: ["log_interval=1", "http_auth=127.0.0.1=me:pw-in-log"],
      });
      assert.equal(scheduled.status, "ok", JSON.stringify(scheduled));
      const job = await service.waitForJob("live-1", "running");
      // Three progress lines while the job is still running: the log is written as the crawl goes.
      const during = await poll("three progress lines", async () => {
        const text = (await service!.text(job.log_url)).body;
        return [...text.matchAll(PROGRESS)].length >= 3 ? text : undefined;
      });
      assert.equal((await service.jobs()).running.length, 1, "still running");
      const lines = during.split("\n");
      assert.match(
        lines[0],
        /\[netweir\.serve\] INFO: job live-1 of project shop: spider books from .*books\.ts, settings /,
      );
      assert.match(lines[0], /"http_auth":"127\.0\.0\.1=me:\*\*\*"/);
      // In Scrapy's format, so LogParser finds every one of them.
      assert.equal([...during.matchAll(LOGPARSER_DATAS)].length, [...during.matchAll(PROGRESS)].length);
      assert.match(during, /\n\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[netweir\] INFO: Crawled /);
      const progress = [...during.matchAll(PROGRESS)];
      assert.ok(progress.some((line) => Number(line[1]) > 0), "pages counted");
      assert.ok(progress.some((line) => Number(line[3]) === 10), "the ten books scraped");
      // Not on the crawl's command line either.
      const pid = job.pid!;
      const commandLine = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
      assert.doesNotMatch(commandLine, /pw-in-log|log_interval/);

      await writeFile(gate, "");
      const finished = await service.waitForJob("live-1", "finished");
      assert.equal(finished.outcome, "finished");
      const after = (await service.text(job.log_url)).body;
      assert.match(after, /\[netweir\] INFO: crawl finished \{.*"items":10/);
      assert.doesNotMatch(after, /pw-in-log/);
      // The stats file keeps a series for the job page's chart; jobstats.json gives the numbers without it.
      const file = JSON.parse(await readFile(join(dir, "serve", "stats", "shop", "books", "live-1.json"), "utf8"));
      assert.ok(file.series.length >= 2, JSON.stringify(file.series));
      assert.deepEqual(file.series.at(-1).slice(1), [file.pages, file.items]);
      const stats = await service.get("jobstats.json", { job: "live-1" });
      assert.equal((stats.stats as Record<string, unknown>).items, 10);
      assert.equal("series" in (stats.stats as Record<string, unknown>), false);
    });
  } finally {
    await stopQuietly(service);
    await site.close();
  }
});

/** `netweir crawl` of the end-to-end shop spider on `site`, its standard error a pipe. */
function crawlBooks(site: string, extra: string[]) {
  return startCli(["crawl", join(E2E_PROJECT, "books.ts"), "--spider", "books", "-a", `site=${site}`, ...extra]);
}

Deno.test("netweir crawl logs Scrapy's progress line every log_interval seconds when standard error is not a terminal", async () => {
  const site = await startFixtureSite({ books: 3 });
  try {
    await withTempDir(async (dir) => {
      const gate = join(dir, "gate");
      const crawl = crawlBooks(site.url, ["-a", `gate=${gate}`, "-s", "log_interval=0.5"]);
      await crawl.waitFor(/Crawled \d+ pages \(at \d+ pages\/min\), scraped 3 items \(at \d+ items\/min\)/, 30_000);
      await writeFile(gate, "");
      const result = await crawl.wait();
      assert.equal(result.code, 0, result.stderr);
      const lines = [...result.stderr.matchAll(PROGRESS)];
      assert.ok(lines.length >= 1, result.stderr);
      assert.ok(!result.stderr.includes("\r"), "no live progress line on a pipe");
      assert.match(
        result.stderr,
        /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO Crawled \d+ pages/m,
        "netweir's format",
      );
    });
  } finally {
    await site.close();
  }
});

Deno.test("netweir crawl logs no progress line at its start: a short crawl's log has none", async () => {
  const site = await startFixtureSite({ books: 2 });
  try {
    const result = await crawlBooks(site.url, []).wait();
    assert.equal(result.code, 0, result.stderr);
    assert.equal([...result.stderr.matchAll(PROGRESS)].length, 0, result.stderr);
    assert.match(result.stderr, /INFO crawl finished /);
  } finally {
    await site.close();
  }
});

Deno.test("netweir crawl -s log_format=scrapy writes Scrapy's log format, which LogParser reads", async () => {
  const site = await startFixtureSite({ books: 2 });
  try {
    const crawl = crawlBooks(site.url, ["-s", "log_format=scrapy"]);
    const result = await crawl.wait();
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stderr.trim().split("\n");
    // Every line is Scrapy's but the stats dict's own, which follow "Dumping Scrapy stats:" as in Scrapy's logs.
    const dumping = lines.findIndex((line) => line.endsWith("INFO: Dumping Scrapy stats:"));
    assert.ok(dumping > 0, result.stderr);
    const dictEnd = lines.findIndex((line, i) => i > dumping && line.endsWith("}"));
    assert.ok(lines.slice(dumping + 1, dictEnd + 1).every((line) => /^[{ ]'/.test(line)), result.stderr);
    for (const line of [...lines.slice(0, dumping + 1), ...lines.slice(dictEnd + 1)]) {
      assert.match(line, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[netweir\] (INFO|WARNING|DEBUG|ERROR): /, line);
    }
    assert.match(lines.at(-1)!, /INFO: Spider closed \(finished\)$/);
    assert.equal([..."\n".concat(result.stderr).matchAll(LOGPARSER_DATAS)].length, 1);
  } finally {
    await site.close();
  }
});
