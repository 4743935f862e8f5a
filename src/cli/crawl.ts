/**
 * `netweir crawl FILE`: load the spider, apply its `-a` arguments, assemble the crawl (src/engine/assemble.ts, as
 * runSpider does), run it, and turn the outcome into an exit status. SIGINT or SIGTERM stops it cleanly; a second
 * one stops it at once.
 */
import { assembleCrawl } from "../engine/assemble.ts";
import { SIGNAL_EXIT, stopOnSignals } from "../engine/signal_stop.ts";
import { Settings } from "../settings/settings.ts";
import type { CrawlCommandOptions } from "./crawl_options.ts";
import { loadSpiders, pickSpider } from "../load/spiders.ts";
import { applySpiderArgs } from "../spider/spider_args.ts";

/** Runs `netweir crawl` with its parsed options; resolves with the exit status. */
export async function runCrawlCommand(options: CrawlCommandOptions): Promise<number> {
  const SpiderClass = pickSpider(await loadSpiders(options.file), options.spider, options.file);
  const spider = new SpiderClass();
  applySpiderArgs(spider, options.args);
  const { crawl, feeds, log } = await assembleCrawl(spider, {
    overrides: Settings.fromPairs(options.settings),
    outputs: options.outputs,
    spiderSource: { file: options.file, spider: options.spider, args: [...options.args] },
    ownsProcess: true,
  });
  const signals = await stopOnSignals(crawl, log);
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
    signals.remove();
  }
  return signals.signalled ? SIGNAL_EXIT[signals.signalled] : 0;
}
