/**
 * The retry count travels with the request (meta `retry_times`): a page reads it as in Scrapy, and a request given
 * back to the queue part-way through its retries carries on from its count when it is taken again.
 */
import assert from "node:assert/strict";
import { Crawl, type Page, Request, Settings, Spider } from "../../mod.ts";
import { createLogger } from "../../src/log.ts";
import { CheckpointFrontier } from "../../src/queue/checkpoint.ts";
import { resolveCrawlSettings } from "../../src/settings/check.ts";
import type { SettingsInit } from "../../src/settings/settings.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { sleep, waitUntil } from "../helpers/wait.ts";
import { startCli } from "../helpers/cli.ts";
import { startRedis } from "../helpers/redis.ts";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { crawlItems } from "./_crawl.ts";

class Flaky extends Spider {
  site = "";
  override async *start() {
    yield new Request({ url: `${this.site}flaky/twice?fail=2` });
  }
  override parse(page: Page) {
    return { hits: (page.json() as { hits: number }).hits, retryTimes: page.meta.retry_times };
  }
}

Deno.test("a page that needed two retries reads meta retry_times 2", async () => {
  const site = await startFixtureSite({ books: 0 });
  try {
    const spider = Object.assign(new Flaky(), { site: site.url });
    const { items, stats } = await crawlItems(spider, { retries: 3, retryBackoff: 0.01, obeyRobotsTxt: false });
    assert.deepEqual(items, [{ hits: 3, retryTimes: 2 }]);
    assert.equal(stats.retries, 2);
  } finally {
    await site.close();
  }
});

/** A request that fails every time: a 503 with no end. */
class AlwaysDown extends Spider {
  site = "";
  override async *start() {
    yield new Request({ url: `${this.site}status/503` });
  }
  override parse() {}
}

function crawlOn(frontier: CheckpointFrontier, site: string, init: SettingsInit): Crawl {
  const settings = resolveCrawlSettings({
    overrides: new Settings({ autothrottle: false, progress: false, obeyRobotsTxt: false, retries: 3, ...init }),
  });
  const spider = Object.assign(new AlwaysDown(), { site });
  return new Crawl(spider, { settings, frontier, log: createLogger("error") });
}

Deno.test("a request stopped between two retries carries on from its count when the checkpoint is resumed", async () => {
  const site = await startFixtureSite({ books: 0 });
  const dir = await Deno.makeTempDir({ prefix: "netweir-retry-count-" });
  const open = () => CheckpointFrontier.open({ dir, spider: new AlwaysDown(), log: createLogger("error") });
  try {
    // First run: the first try fails and its retry waits (retry_backoff 2 s); the crawl is stopped in that wait.
    const first = crawlOn(await open(), site.url, { retryBackoff: 2 });
    const running = first.run();
    await waitUntil("the first try", () => site.hits("/status/503") === 1, 10_000);
    await waitUntil("the retry decided", () => first.stats.toJSON().retries === 1, 10_000);
    first.stop("shutdown");
    await running;
    // Second run: the two retries left, and no more (with the count lost it would start over: 1 + 3 more tries). Its
    // first one waits out what is left of the stored wait (2.4 s at most).
    const second = crawlOn(await open(), site.url, { retryBackoff: 0.01 });
    const stats = await second.run();
    assert.equal(site.hits("/status/503"), 1 + 3, "one first try and three retries in all");
    assert.equal(stats.retries, 1 + 2);
  } finally {
    await site.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a shared crawl's process killed between two retries: the one that takes its request back carries on from the count", async () => {
  const site = await startFixtureSite({ books: 0 });
  const redis = await startRedis();
  const dir = await Deno.makeTempDir({ prefix: "netweir-retry-reclaim-" });
  try {
    const spider = join(dir, "down.ts");
    await writeFile(
      spider,
      `import { Request, Spider } from ${JSON.stringify(new URL("../../mod.ts", import.meta.url).href)};
export class Down extends Spider {
  site = "";
  override async *start() {
    yield new Request({ url: this.site + "status/503" });
  }
  override parse() {}
}
`,
    );
    const args = (backoff: number) => [
      "crawl",
      spider,
      "-a",
      `site=${site.url}`,
      "-s",
      `queue=${redis.url}`,
      "-s",
      "queue_lease=1.5",
      "-s",
      "queue_idle=1",
      "-s",
      "obey_robots_txt=false",
      "-s",
      "retries=3",
      "-s",
      `retry_backoff=${backoff}`,
    ];
    // The first process tries once, decides on a retry (waiting 2 s or so), and is killed in that wait.
    const first = startCli(args(2));
    await waitUntil("the first try", () => site.hits("/status/503") === 1, 30_000);
    await sleep(500);
    await first.kill("SIGKILL");
    assert.equal((await first.wait()).signal, "SIGKILL");
    // The second takes the dead process's request back once its lease is over, and makes the retries left: two.
    const second = await startCli(args(0.01)).wait();
    assert.equal(second.code, 0, second.stderr);
    assert.equal(site.hits("/status/503"), 1 + 3, "one first try and three retries in all");
  } finally {
    await redis.stop();
    await site.close();
    await Deno.remove(dir, { recursive: true });
  }
});
