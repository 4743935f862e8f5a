/** Running a spider from code, without the command line. */
import { checkBrowserAtStart } from "./browser/find_browser.ts";
import { Crawl } from "./engine/crawl.ts";
import type { StatsRecord } from "./engine/stats.ts";
import { createLogger, type LogLevel } from "./log.ts";
import { FeedSet, parseFeedTarget } from "./output/feeds.ts";
import { spiderPlaceholders } from "./output/placeholders.ts";
import { openFrontier } from "./queue/open_frontier.ts";
import { refuseCloudOutputWithQueue } from "./output/cloud/queue_refusal.ts";
import { resolveCrawlSettings } from "./settings/check.ts";
import { Settings, type SettingsInit } from "./settings/settings.ts";
import { Spider, type SpiderClass, spiderName } from "./spider/spider.ts";
import { spiderSettings } from "./spider/spider_settings.ts";
import { checkSpiderAtStart } from "./spider/start_checks.ts";
import { checkCrawlPaths } from "./output/crawl_paths.ts";

export interface RunOptions {
  /** Settings over the spider's own (as `-s` on the command line). */
  settings?: Settings | SettingsInit;
  /** Feed files (as `-o`); existing files are appended to unless `overwrite`. */
  output?: string[];
  overwrite?: boolean;
}

/**
 * Runs a spider to the end in this process and returns its stats. With a `queue` setting it takes part in a shared
 * crawl, as `netweir crawl` does: it ends when the crawl does, and fails with QueueError when the queue is lost.
 *
 * @example
 * ```ts ignore
 * const stats = await runSpider(Books, { output: ["books.jsonl"], settings: { maxItems: 10 } });
 * ```
 */
export async function runSpider(spider: Spider | SpiderClass, options: RunOptions = {}): Promise<StatsRecord> {
  const instance = spider instanceof Spider ? spider : new spider();
  checkSpiderAtStart(instance);
  const overrides = options.settings instanceof Settings ? options.settings : new Settings(options.settings ?? {});
  const settings = resolveCrawlSettings({ spider: spiderSettings(instance), profiles: instance.profiles, overrides });
  const outputs = options.output ?? [];
  refuseCloudOutputWithQueue(outputs, settings.queue);
  checkBrowserAtStart(instance, settings);
  const targets = outputs.map((path) => parseFeedTarget(path, options.overwrite ?? false));
  const log = createLogger(settings.logLevel as LogLevel);
  // Every path, then the queue, as on the command line: a bad path or a Redis that cannot be reached must not cost
  // a file its contents.
  await checkCrawlPaths(settings, targets);
  const frontier = await openFrontier(instance, settings, log);
  let sink: FeedSet;
  try {
    sink = await FeedSet.open(targets, log, {
      placeholders: spiderPlaceholders(instance, spiderName(instance), new Date()),
    });
  } catch (error) {
    await frontier?.close();
    throw error;
  }
  return await new Crawl(instance, { settings, sink, log, frontier }).run();
}
