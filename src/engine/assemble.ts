/**
 * Putting a crawl together from a spider, settings over its own and feed paths: the one assembly behind both
 * `runSpider()` (src/run.ts) and `netweir crawl` (src/cli/crawl.ts), so the two cannot drift. The checks run in the
 * order that costs the user least: everything about the settings and the spider first, then every path, then the
 * queue, and only then are the feed files opened, so a typing mistake or a Redis that cannot be reached never costs
 * an `-O` file its old contents.
 */
import { checkBrowserAtStart } from "../browser/find_browser.ts";
import { createLogger, type LogFormat, type LogLevel } from "../log.ts";
import { refuseCloudOutputWithQueue } from "../output/cloud/queue_refusal.ts";
import { checkCrawlPaths } from "../output/crawl_paths.ts";
import { FeedSet, parseFeedTarget } from "../output/feeds.ts";
import { spiderPlaceholders } from "../output/placeholders.ts";
import { openFrontier } from "../queue/open_frontier.ts";
import { runtime } from "../runtime/mod.ts";
import { resolveCrawlSettings } from "../settings/check.ts";
import type { Settings } from "../settings/settings.ts";
import type { SettingValues } from "../settings/table.ts";
import { type Spider, spiderName } from "../spider/spider.ts";
import { spiderSettings } from "../spider/spider_settings.ts";
import { checkSpiderAtStart, spiderStartWarnings } from "../spider/start_checks.ts";
import type { Logger } from "../spider/types.ts";
import { Crawl } from "./crawl.ts";
import type { SpiderSource } from "./worker_pool.ts";

/** One feed: a path (or URL) as `-o` takes it, and whether it is truncated first (`-O`). */
export interface FeedOutput {
  path: string;
  overwrite: boolean;
}

/** What a crawl is assembled from, besides its spider. */
export interface AssemblyOptions {
  /** Settings over the spider's own (`-s`, or runSpider's `settings`). */
  overrides: Settings;
  /** The feeds, in order. */
  outputs: readonly FeedOutput[];
  /** Where callback workers load the spider from; without it a crawl with `workers` above 0 is refused. */
  spiderSource?: SpiderSource;
  /** Whether the crawl is the program's whole work (`netweir crawl`; see CrawlOptions.ownsProcess). */
  ownsProcess?: boolean;
}

/** A crawl ready to run, with what its caller reports from. */
export interface AssembledCrawl {
  crawl: Crawl;
  /** The feeds it writes, open. */
  feeds: FeedSet;
  /** Its logger (standard error, at the `logLevel` and `logFormat` settings). */
  log: Logger;
  settings: SettingValues;
}

/**
 * Resolves the settings, checks the spider, the settings, the paths and the queue, opens the feeds and builds the
 * crawl. Throws SettingsError, UsageError, QueueError or TypeError before any file is touched.
 */
export async function assembleCrawl(spider: Spider, options: AssemblyOptions): Promise<AssembledCrawl> {
  checkSpiderAtStart(spider);
  const settings = resolveCrawlSettings({
    spider: spiderSettings(spider),
    profiles: spider.profiles,
    overrides: options.overrides,
  });
  refuseCloudOutputWithQueue(options.outputs.map((output) => output.path), settings.queue);
  checkBrowserAtStart(spider, settings);
  // Loaded only when used: a crawl that renders nothing loads no module of the browser's but the start check above.
  if (settings.browserEndpoint !== null) await (await import("../browser/endpoint.ts")).checkEndpointAtStart(settings);
  // The deltafetch record and the checkpoint are SQLite, and Node would print an experimental-feature warning.
  if (settings.deltafetch !== null || settings.checkpoint !== null) runtime.quietSqliteWarning();
  const targets = options.outputs.map((output) => parseFeedTarget(output.path, output.overwrite));
  const log = crawlLogger(settings);
  for (const warning of spiderStartWarnings(spider)) log.warning(warning);
  await checkCrawlPaths(settings, targets);
  // A schema ajv refuses is the user's mistake, told before the queue is opened or a feed file truncated.
  const schema = settings.monitors?.schema;
  const itemSchema = schema === undefined
    ? undefined
    : await (await import("./item_schema.ts")).compileItemSchema(schema);
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
  const crawl = new Crawl(spider, {
    settings,
    sink: feeds,
    log,
    frontier,
    spiderSource: options.spiderSource,
    ownsProcess: options.ownsProcess,
    itemSchema,
  });
  return { crawl, feeds, log, settings };
}

/** The crawl's logger on standard error; with a live progress line it clears that line before each log line. */
function crawlLogger(settings: SettingValues): Logger {
  const progressShown = settings.progress ?? runtime.stderrIsTerminal();
  return createLogger(
    settings.logLevel as LogLevel,
    (line) => runtime.writeStderr(progressShown ? "\r\x1b[K" + line : line),
    undefined,
    settings.logFormat as LogFormat,
  );
}
