/**
 * Runs a spider to its end in this process, with quiet logs (and `frontier`, or a new memory one), and returns the items
 * it wrote and the final stats.
 */
import { Crawl, type Item, Settings, type SettingsInit, type Spider, type StatsRecord } from "../../mod.ts";
import { createLogger, type LogLevel } from "../../src/log.ts";
import { resolveCrawlSettings } from "../../src/settings/check.ts";
import type { Frontier } from "../../src/queue/frontier.ts";

export async function crawlItems(
  spider: Spider,
  init: SettingsInit = {},
  log: { level?: LogLevel; lines?: string[] } = {},
  frontier?: Frontier,
): Promise<{ items: Item[]; stats: StatsRecord }> {
  const items: Item[] = [];
  const settings = resolveCrawlSettings({
    spider: new Settings(),
    profiles: {},
    overrides: new Settings({ autothrottle: false, progress: false, ...init }),
  });
  const stats = await new Crawl(spider, {
    settings,
    frontier,
    log: createLogger(log.level ?? "error", (line) => log.lines?.push(line)),
    sink: { write: (batch) => Promise.resolve(void items.push(...batch)), close: () => Promise.resolve() },
  }).run();
  return { items, stats };
}
