/**
 * Settings: a layer of values over the defaults of the one table. Both spellings are accepted everywhere
 * (`maxItems` and `max_items`) and normalised to the TypeScript one; unknown names and wrong types are refused with
 * a SettingsError naming the setting.
 */
import { SettingsError } from "../errors.ts";
import { parseSettingText, validateSetting } from "./coerce.ts";
import { scrapySettingAdvice } from "./scrapy_settings.ts";
import { findSetting, nearestSetting, type SettingKey, SETTINGS, type SettingValues } from "./table.ts";

/** Values for some settings, in either spelling. */
export type SettingsInit = Partial<SettingValues> | Record<string, unknown>;

function unknownSetting(name: string): never {
  const scrapy = scrapySettingAdvice(name);
  if (scrapy) {
    throw new SettingsError(`unknown setting ${name}, a Scrapy name; in Netweir it is ${scrapy}`, { setting: name });
  }
  const near = nearestSetting(name);
  throw new SettingsError(`unknown setting ${name}${near ? ` (did you mean ${near}?)` : ""}`, { setting: name });
}

/**
 * A set of settings given explicitly; anything not given falls back to the next layer, then the default. Names are
 * taken in either spelling (`maxItems` or `max_items`), and every value is checked when it is given.
 *
 * @example Layers, both spellings, and the checks
 * ```ts
 * import { Settings, SettingsError } from "netweir";
 * import assert from "node:assert/strict";
 *
 * const spider = new Settings({ concurrency: 4, per_domain: 2 });
 * const commandLine = Settings.fromPairs(["per_domain=1", "max_items=100"]);
 * const settings = spider.merge(commandLine).resolve();
 * assert.equal(settings.concurrency, 4); // the spider's
 * assert.equal(settings.perDomain, 1); // the command line's, over the spider's
 * assert.equal(settings.maxItems, 100);
 * assert.equal(settings.obeyRobotsTxt, true); // the default
 *
 * assert.throws(() => new Settings({ concurency: 4 }), SettingsError); // did you mean concurrency?
 * assert.throws(() => Settings.fromPairs(["per_domain=many"]), SettingsError);
 * ```
 */
export class Settings {
  readonly #values = new Map<SettingKey, unknown>();

  /** A layer with these values; an unknown name or a wrong value throws a SettingsError naming the setting. */
  constructor(init: SettingsInit = {}) {
    for (const [name, value] of Object.entries(init)) {
      if (value === undefined) continue;
      const row = findSetting(name) ?? unknownSetting(name);
      // A copy, so a caller changing its own list afterwards cannot slip an unchecked value in.
      this.#values.set(row.key as SettingKey, structuredClone(validateSetting(row, value)));
    }
  }

  /** Settings from `KEY=VALUE` texts (the `-s` option, or `setting=` over HTTP), each parsed by its type. */
  static fromPairs(pairs: readonly string[]): Settings {
    const settings = new Settings();
    for (const pair of pairs) {
      const eq = pair.indexOf("=");
      if (eq <= 0) throw new SettingsError(`setting must be KEY=VALUE, not ${JSON.stringify(pair)}`);
      const name = pair.slice(0, eq).trim();
      const row = findSetting(name) ?? unknownSetting(name);
      settings.#values.set(row.key as SettingKey, validateSetting(row, parseSettingText(row, pair.slice(eq + 1))));
    }
    return settings;
  }

  /** The value given in this layer, or undefined when it was not given. */
  given<K extends SettingKey>(key: K): SettingValues[K] | undefined {
    return this.#values.get(key) as SettingValues[K] | undefined;
  }

  /** Whether this layer gives a value for the setting. */
  has(key: SettingKey): boolean {
    return this.#values.has(key);
  }

  /** The keys this layer gives values for. */
  keys(): SettingKey[] {
    return [...this.#values.keys()];
  }

  /** A new layer with `other`'s values over this one's. */
  merge(other: Settings | SettingsInit | undefined): Settings {
    const merged = new Settings();
    for (const [key, value] of this.#values) merged.#values.set(key, value);
    const top = other instanceof Settings ? other : new Settings(other ?? {});
    for (const [key, value] of top.#values) merged.#values.set(key, value);
    return merged;
  }

  /** Every setting, given or default: what a crawl runs with. */
  resolve(): SettingValues {
    const values: Record<string, unknown> = {};
    for (const row of SETTINGS) {
      // Copies of lists and maps, given or default: two crawls resolved from one Settings share nothing.
      values[row.key] = structuredClone(
        this.#values.has(row.key as SettingKey) ? this.#values.get(row.key as SettingKey) : row.default,
      );
    }
    return values as SettingValues;
  }

  /** The given values in command-line spelling, as JSON (for logs and the job server). */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [key, value] of this.#values) out[findSetting(key)!.cli] = value;
    return out;
  }
}
