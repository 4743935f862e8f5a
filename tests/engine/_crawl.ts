/** Runs a spider to its end in this process, with quiet logs, and returns the items it wrote and the final stats. */
import { Crawl, type Item, Settings, type SettingsInit, type Spider, type StatsRecord } from "../../mod.ts";
import { createLogger, type LogLevel } from "../../src/log.ts";
import { resolveCrawlSettings } from "../../src/settings/check.ts";

export async function crawlItems(
  spider: Spider,
  init: SettingsInit = {},
  log: { level?: LogLevel; lines?: string[] } = {},
): Promise<{ items: Item[]; stats: StatsRecord }> {
  const items: Item[] = [];
  const settings = resolveCrawlSettings({
    spider: new Settings(),
    profiles: {},
    overrides: new Settings({ autothrottle: false, progress: false, ...init }),
  });
  const stats = await new Crawl(spider, {
    settings,
    log: createLogger(log.level ?? "error", (line) => log.lines?.push(line)),
    sink: { write: (batch) => Promise.resolve(void items.push(...batch)), close: () => Promise.resolve() },
  }).run();
  return { items, stats };
}
