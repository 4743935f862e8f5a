/**
 * The frontier a crawl's settings ask for, opened: this process's memory (undefined: the crawl makes its own) or the
 * shared Redis queue. One place for `netweir crawl` and `runSpider`, so a spider's `queue` setting means the same
 * from code as from the command line.
 */
import { platform } from "node:os";
import type { SettingValues } from "../settings/table.ts";
import { type Spider, spiderName } from "../spider/spider.ts";
import type { Logger } from "../spider/types.ts";
import type { EntryLimits } from "./codec.ts";
import type { Frontier } from "./frontier.ts";
import { RedisFrontier } from "./redis_frontier.ts";

/** The bounds on a stored request, from the queue_entry_max_* settings. */
export function entryLimits(settings: SettingValues): EntryLimits {
  return {
    maxBytes: settings.queueEntryMaxBytes,
    maxDepth: settings.queueEntryMaxDepth,
    maxHeaders: settings.queueEntryMaxHeaders,
  };
}

/**
 * Opens the shared queue when `settings.queue` names one (QueueError when it cannot be used), or the checkpoint
 * when `settings.checkpoint` names a directory; else undefined (the crawl keeps its queue in memory).
 */
export async function openFrontier(
  spider: Spider,
  settings: SettingValues,
  log: Logger,
): Promise<Frontier | undefined> {
  if (settings.checkpoint !== null) {
    // Loaded only here: a crawl without a checkpoint never loads SQLite.
    const { CheckpointFrontier } = await import("./checkpoint.ts");
    return await CheckpointFrontier.open({ dir: settings.checkpoint, spider, log, limits: entryLimits(settings) });
  }
  if (settings.queue === null) return undefined;
  return await RedisFrontier.open({
    url: settings.queue,
    key: settings.queueKey ?? spiderName(spider),
    spider,
    log,
    leaseSeconds: settings.queueLease,
    idleSeconds: settings.queueIdle,
    windows: platform() === "win32",
    limits: entryLimits(settings),
    perDomain: settings.perDomain,
    politeness: settings.politenessScope === "crawl"
      ? { perDomain: settings.perDomain, minDelay: settings.minDelay }
      : undefined,
  });
}
