/**
 * `netweir crawl FILE`: load the spider, layer its settings under `-s`, open the feeds, run the crawl, and turn
 * the outcome into an exit status. SIGINT or SIGTERM stops it cleanly; a second one stops it at once.
 */
import { checkBrowserAtStart } from "../browser/find_browser.ts";
import { Crawl } from "../engine/crawl.ts";
import { createLogger, type LogFormat, type LogLevel } from "../log.ts";
import { FeedSet, parseFeedTarget } from "../output/feeds.ts";
import { spiderPlaceholders } from "../output/placeholders.ts";
import { spiderName } from "../spider/spider.ts";
import { runtime, type StopSignal } from "../runtime/mod.ts";
import { resolveCrawlSettings } from "../settings/check.ts";
import { Settings } from "../settings/settings.ts";
import { openFrontier } from "../queue/open_frontier.ts";
import { refuseCloudOutputWithQueue } from "../output/cloud/queue_refusal.ts";
import type { CrawlCommandOptions } from "./crawl_options.ts";
import { loadSpiders, pickSpider } from "../load/spiders.ts";
import { applySpiderArgs } from "../spider/spider_args.ts";

export { applySpiderArgs };
import { spiderSettings } from "../spider/spider_settings.ts";
import { checkCrawlPaths } from "../output/crawl_paths.ts";
import { checkSpiderAtStart } from "../spider/start_checks.ts";

/** Exit statuses of a crawl stopped by a signal, as a shell reports them. */
const SIGNAL_EXIT: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143 };

export async function runCrawlCommand(options: CrawlCommandOptions): Promise<number> {
  const SpiderClass = pickSpider(await loadSpiders(options.file), options.spider, options.file);
  const spider = new SpiderClass();
  applySpiderArgs(spider, options.args);
  checkSpiderAtStart(spider);
  const settings = resolveCrawlSettings({
    spider: spiderSettings(spider),
    profiles: spider.profiles,
    overrides: Settings.fromPairs(options.settings),
  });
  refuseCloudOutputWithQueue(options.outputs.map((output) => output.path), settings.queue);
  checkBrowserAtStart(spider, settings);
  // The deltafetch record and the checkpoint are SQLite, and Node would print an experimental-feature warning.
  if (settings.deltafetch !== null || settings.checkpoint !== null) runtime.quietSqliteWarning();
  const targets = options.outputs.map((output) => parseFeedTarget(output.path, output.overwrite));
  const progressShown = settings.progress ?? runtime.stderrIsTerminal();
  const log = createLogger(
    settings.logLevel as LogLevel,
    (line) => {
      // Clear the live progress line first, so a log line never lands in the middle of it.
      runtime.writeStderr(progressShown ? "\r\x1b[K" + line : line);
    },
    undefined,
    settings.logFormat as LogFormat,
  );
  // Every path first, then the queue: a typing mistake in a path or a Redis that cannot be reached must not cost
  // an -O file its old contents.
  await checkCrawlPaths(settings, targets);
  const frontier = await openFrontier(spider, settings, log);
  let feeds: FeedSet;
  try {
    feeds = await FeedSet.open(targets, log, {
      placeholders: spiderPlaceholders(spider, spiderName(spider), new Date()),
    });
  } catch (error) {
    await frontier?.close();
    throw error;
  }
  const spiderSource = { file: options.file, spider: options.spider, args: [...options.args] };
  const crawl = new Crawl(spider, { settings, sink: feeds, log, frontier, spiderSource });

  let signalled: StopSignal | undefined;
  const onSignal = (signal: StopSignal) => () => {
    if (signalled) {
      log.warning(`second ${signal}: stopping at once`);
      runtime.exit(SIGNAL_EXIT[signal]);
    }
    signalled = signal;
    crawl.stop("shutdown");
  };
  const removers = (["SIGINT", "SIGTERM"] as const).map((signal) => runtime.onSignal(signal, onSignal(signal)));
  try {
    const stats = await crawl.run().catch((error) => {
      // A TypeError from the spider's own code while crawling is a failure at run time (exit 1), not a bad value
      // given on the command line (exit 2).
      if (error instanceof TypeError || error instanceof RangeError) {
        throw new Error(`crawl failed: ${error.message}`, { cause: error });
      }
      throw error;
    });
    log.info("crawl finished " + JSON.stringify(stats));
    for (const path of feeds.paths) log.info(`items written to ${path}`);
  } finally {
    for (const remove of removers) remove();
  }
  return signalled ? SIGNAL_EXIT[signalled] : 0;
}
