/** Running a crawl in this process, for tests: its items, its stats and the log lines it wrote. */
import { Crawl, type Item, resolveCrawlSettings, Settings, type SettingsInit, type Spider } from "../../mod.ts";
import { createLogger } from "../../src/log.ts";

export async function crawl(spider: Spider, settings: SettingsInit = {}) {
  const items: Item[] = [];
  const lines: string[] = [];
  const values = resolveCrawlSettings({
    spider: spider.settings,
    profiles: spider.profiles,
    overrides: new Settings({ autothrottle: false, retryBackoff: 0.01, progress: false, ...settings }),
  });
  const run = new Crawl(spider, {
    settings: values,
    log: createLogger("debug", (line) => void lines.push(line)),
    sink: { write: (batch) => Promise.resolve(void items.push(...batch)), close: () => Promise.resolve() },
  });
  const stats = await run.run();
  return { items, stats, lines };
}
