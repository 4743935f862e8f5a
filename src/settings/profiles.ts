/** Built-in profiles (C17): named bundles of settings a crawl can start from. */
import type { SettingsInit } from "./settings.ts";

/** The profiles every spider can choose with the `profile` setting, by name. */
export const BUILTIN_PROFILES: Readonly<Record<string, SettingsInit>> = {
  /** For sites you want to stay friends with: one request at a time per host, a second apart at least. */
  polite: { perDomain: 1, minDelay: 1, maxDelay: 60, autothrottle: true, obeyRobotsTxt: true },
  /** For your own sites and test servers: many requests at once and no added delay. */
  fast: { concurrency: 64, perDomain: 16, minDelay: 0, autothrottle: false },
};
