/**
 * The start-of-crawl checks, as one function: what `netweir crawl` refuses before it fetches anything, and what
 * `netweir serve` refuses when a job is scheduled, without starting a crawl.
 */
import { platform } from "node:os";
import { SettingsError } from "../errors.ts";
import { checkQueueKey, parseRedisUrl } from "./redis_url.ts";
import { BUILTIN_PROFILES } from "./profiles.ts";
import { Settings, type SettingsInit } from "./settings.ts";
import { findSetting, SETTINGS, type SettingValues } from "./table.ts";

/** Where a crawl's settings come from, lowest layer first after the defaults. */
export interface SettingsSources {
  /** The spider's `settings` property. */
  spider?: Settings;
  /** The spider's own named profiles. */
  profiles?: Record<string, SettingsInit>;
  /** `-s` on the command line or `setting=` over HTTP. */
  overrides?: Settings;
}

/**
 * Layers defaults, the chosen profile, the spider's settings and the overrides, then runs every start-of-crawl
 * check. Returns the settings the crawl runs with; throws SettingsError naming the first problem.
 */
export function resolveCrawlSettings(sources: SettingsSources): SettingValues {
  const given = (sources.spider ?? new Settings()).merge(sources.overrides);
  const profileName = given.given("profile") ?? null;
  let layered = given;
  if (profileName !== null) {
    // Own properties only: "constructor" or "toString" must not find Object.prototype's and pass as a profile.
    const own = (bundles: Readonly<Record<string, SettingsInit>> | undefined) =>
      bundles && Object.hasOwn(bundles, profileName) ? bundles[profileName] : undefined;
    const bundle = own(sources.profiles) ?? own(BUILTIN_PROFILES);
    if (!bundle) {
      const known = [...new Set([...Object.keys(BUILTIN_PROFILES), ...Object.keys(sources.profiles ?? {})])];
      throw new SettingsError(`unknown profile ${JSON.stringify(profileName)} (known: ${known.join(", ")})`, {
        setting: "profile",
      });
    }
    layered = new Settings(bundle).merge(given);
  }
  const values = layered.resolve();
  checkSettings(values);
  return values;
}

/** The checks across settings that no single row can make. Throws SettingsError. */
export function checkSettings(values: SettingValues): void {
  if (values.queue !== null) {
    // The queue in Redis is the crawl's saved state and its memory of what was fetched; these keep their own.
    for (const key of ["checkpoint", "deltafetch"] as const) {
      if (values[key] !== null) {
        throw new SettingsError(`${key} does not mix with a shared queue (queue); use one or the other`, {
          setting: key,
        });
      }
    }
    // The queue's own checks throw TypeError, as a library function should; here the value is a setting.
    const queue = values.queue;
    asSettingsError("queue", () => parseRedisUrl(queue, { windows: platform() === "win32" }));
    const key = values.queueKey;
    if (key !== null) asSettingsError("queue_key", () => checkQueueKey(key));
  }
  for (const row of SETTINGS) {
    if (row.unavailable && values[row.key as keyof SettingValues] !== row.default) {
      throw new SettingsError(`${row.cli} is not available yet`, { setting: row.cli });
    }
  }
  if (values.minDelay > values.maxDelay) {
    throw new SettingsError(
      `min_delay (${values.minDelay}) is above max_delay (${values.maxDelay})`,
      { setting: "min_delay" },
    );
  }
  if (values.dnsMinTtl > values.dnsMaxTtl) {
    throw new SettingsError(
      `dns_min_ttl (${values.dnsMinTtl}) is above dns_max_ttl (${values.dnsMaxTtl})`,
      { setting: "dns_min_ttl" },
    );
  }
  if (values.proxyRotation !== null && values.proxies.length === 0) {
    throw new SettingsError("proxy_rotation needs proxies", { setting: "proxy_rotation" });
  }
}

function asSettingsError(setting: string, check: () => unknown): void {
  try {
    check();
  } catch (error) {
    if (error instanceof TypeError) throw new SettingsError(error.message, { setting, cause: error });
    throw error;
  }
}

/** The command-line spelling of a setting, for messages. */
export function cliName(key: string): string {
  return findSetting(key)?.cli ?? key;
}
