/** Shared by the fetch tests: a downloader from settings, quiet logs, and reading JSON bodies. */
import { Downloader } from "../../src/fetch/downloader.ts";
import type { FetchedResponse } from "../../src/spider/response.ts";
import { createLogger } from "../../src/log.ts";
import { Settings, type SettingsInit } from "../../src/settings/settings.ts";
import type { SettingValues } from "../../src/settings/table.ts";

/** Resolved settings: the defaults with `init` over them. */
export function settingsWith(init: SettingsInit = {}): SettingValues {
  return new Settings(init).resolve();
}

/** A downloader with the given settings, logging nowhere. */
export function downloaderWith(init: SettingsInit = {}): Downloader {
  return new Downloader(settingsWith(init), createLogger("error", () => {}));
}

/** The body as text. */
export function textOf(response: FetchedResponse): string {
  return new TextDecoder().decode(response.body);
}

/** What /echo reported it received. */
export interface Echo {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: string;
}

/** The body of an /echo response. */
export function echoOf(response: FetchedResponse): Echo {
  return JSON.parse(textOf(response));
}

/** `site.url` with the host name changed, e.g. to "localhost": another host for the same server. */
export function onHost(url: string, hostname: string): string {
  const changed = new URL(url);
  changed.hostname = hostname;
  return changed.href;
}
