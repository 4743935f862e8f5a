/**
 * `netweir crawl FILE`: load the spider, apply its `-a` arguments, assemble the crawl (src/engine/assemble.ts, as
 * runSpider does), run it, and turn the outcome into an exit status: 1 when nothing at all could be fetched
 * (nothing_fetched.ts), 1 when a monitor failed (one line for each, docs/monitors.md). SIGINT or SIGTERM stops it cleanly; a second one stops it at once.
 */
import { assembleCrawl } from "../engine/assemble.ts";
import { SIGNAL_EXIT, stopOnSignals } from "../engine/signal_stop.ts";
import { Settings } from "../settings/settings.ts";
import type { CrawlCommandOptions } from "./crawl_options.ts";
import { createSpider, loadSpiders, pickSpider } from "../load/spiders.ts";
import { applySpiderArgs } from "../spider/spider_args.ts";
import { CommandError } from "./errors.ts";
import { nothingFetched } from "./nothing_fetched.ts";
import { logScrapyClosing } from "./scrapy_closing.ts";
import { runtime } from "../runtime/mod.ts";

/** Runs `netweir crawl` with its parsed options; resolves with the exit status. */
export async function runCrawlCommand(options: CrawlCommandOptions): Promise<number> {
  const SpiderClass = pickSpider(await loadSpiders(options.file), options.spider, options.file);
  const spider = createSpider(SpiderClass);
  applySpiderArgs(spider, options.args);
  const { crawl, log, settings } = await assembleCrawl(spider, {
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
    try {
      // A crawl stopped by a signal may not have got to fetching yet: the signal's status says what happened.
      const nothing = signals.signalled ? undefined : nothingFetched(stats);
      if (nothing) throw new CommandError(nothing);
      // Each feed already said where its items went ("Stored jsonl feed (N items) in: path"), as Scrapy says it.
      if (signals.signalled) return SIGNAL_EXIT[signals.signalled];
      const failed = crawl.stats.monitors?.failed ?? [];
      for (const { monitor, message } of failed) {
        runtime.writeStderr(`netweir: monitor ${monitor} failed: ${message}\n`);
      }
      return failed.length > 0 ? 1 : 0;
    } finally {
      // Last, after every other line with a brace in it: LogParser takes the stats block up to the log's last "}".
      if (settings.logFormat === "scrapy") logScrapyClosing(log, stats);
    }
  } finally {
    signals.remove();
  }
}
