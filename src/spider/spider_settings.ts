/** A spider's `settings` property as a Settings layer. */
import { Settings } from "../settings/settings.ts";
import type { Spider } from "./spider.ts";

/** The spider's own settings; a plain object in place of a Settings is accepted too. */
export function spiderSettings(spider: Spider): Settings {
  const own = spider.settings as unknown;
  return own instanceof Settings ? own : new Settings((own ?? {}) as Record<string, unknown>);
}
