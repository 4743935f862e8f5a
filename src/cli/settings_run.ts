/**
 * What `netweir settings` does once its command line is parsed (src/cli/settings_command.ts): the settings a crawl
 * of the spider would run with, each with where its value came from: `default`, `profile NAME`, `spider` (its own
 * `settings`) or `-s` (the command line). Loaded only when it runs.
 */
import { maskSecrets } from "../log.ts";
import { resolveCrawlSettings } from "../settings/check.ts";
import { BUILTIN_PROFILES } from "../settings/profiles.ts";
import { Settings } from "../settings/settings.ts";
import { findSetting, nearestSetting, type SettingKey, SETTINGS } from "../settings/table.ts";
import { SettingsError } from "../errors.ts";
import { spiderSettings } from "../spider/spider_settings.ts";
import type { CommandContext } from "./context.ts";
import { loadSpider, settingPairs, type SpiderOptionValues } from "./spider_options.ts";

export interface SettingsOptions extends SpiderOptionValues {
  get?: string;
  list?: boolean;
  json?: boolean;
}

/** A value as the command line would write it: text as it is, the rest as JSON (null for none). */
function shown(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Prints the effective settings (or one of them); resolves with the exit status. */
export async function runSettings(options: SettingsOptions, context: CommandContext): Promise<number> {
  const spider = await loadSpider(options);
  const overrides = Settings.fromPairs(settingPairs(options));
  const own = spider ? spiderSettings(spider) : new Settings();
  const values = resolveCrawlSettings({ spider: own, profiles: spider?.profiles, overrides });
  const profileName = own.merge(overrides).given("profile") ?? null;
  const bundles = { ...BUILTIN_PROFILES, ...spider?.profiles };
  const profile = profileName !== null && Object.hasOwn(bundles, profileName)
    ? new Settings(bundles[profileName])
    : new Settings();
  const source = (key: SettingKey) =>
    overrides.has(key) ? "-s" : own.has(key) ? "spider" : profile.has(key) ? `profile ${profileName}` : "default";
  if (options.get !== undefined) {
    const row = findSetting(options.get);
    if (!row) {
      const near = nearestSetting(options.get);
      throw new SettingsError(`unknown setting ${options.get}${near ? ` (did you mean ${near}?)` : ""}`);
    }
    const value = values[row.key as SettingKey];
    context.out(maskSecrets(options.json ? JSON.stringify(value) : shown(value)) + "\n");
    return 0;
  }
  const rows = SETTINGS.map((row) => ({
    name: row.cli,
    value: values[row.key as SettingKey],
    source: source(row.key as SettingKey),
  }));
  if (options.json) {
    context.out(maskSecrets(JSON.stringify(rows, null, 2)) + "\n");
    return 0;
  }
  const width = Math.max(...rows.map((row) => row.name.length));
  for (const row of rows) {
    context.out(maskSecrets(`${row.name.padEnd(width)}  ${shown(row.value)}  (${row.source})`) + "\n");
  }
  return 0;
}
