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
import { type HostLimit, RedisFrontier } from "./redis_frontier.ts";
import { settingsByHost } from "../settings/by_host.ts";
import { normaliseHosts } from "../settings/hosts.ts";
import { TABLE } from "../settings/table.ts";
import type { SettingDefinition } from "../settings/types.ts";

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
  const settingsOf = settingsByHost(settings, settings.hosts);
  return await RedisFrontier.open({
    url: settings.queue,
    key: settings.queueKey ?? spiderName(spider),
    spider,
    log,
    leaseSeconds: settings.queueLease,
    idleSeconds: settings.queueIdle,
    windows: platform() === "win32",
    limits: entryLimits(settings),
    perDomain: Object.keys(settings.hosts).length === 0 ? settings.perDomain : (host) => settingsOf(host).perDomain,
    politeness: settings.politenessScope === "crawl"
      ? { perDomain: settings.perDomain, minDelay: settings.minDelay, hosts: hostLimits(settings) }
      : undefined,
  });
}

/**
 * The `hosts` entries' own per_domain and min_delay, for the crawl-wide politeness the lease script keeps: each
 * pattern with the crawl's value for whichever of the two its entry leaves out (an entry wins whole, as in
 * src/settings/hosts.ts). Entries that set neither are left out: the crawl's own values hold for them already.
 */
export function hostLimits(settings: Pick<SettingValues, "hosts" | "perDomain" | "minDelay">): HostLimit[] {
  const hosts = normaliseHosts(settings.hosts, TABLE as unknown as Record<string, SettingDefinition>);
  return Object.entries(hosts)
    .filter(([, entry]) => entry.perDomain !== undefined || entry.minDelay !== undefined)
    .map(([pattern, entry]) => ({
      pattern,
      perDomain: (entry.perDomain as number | undefined) ?? settings.perDomain,
      minDelay: (entry.minDelay as number | undefined) ?? settings.minDelay,
    }));
}
