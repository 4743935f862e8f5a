/** {@link hostSettings} with the settings table's rows: what the crawl's parts call (slots, downloader). */
import { hostSettings } from "./hosts.ts";
import { TABLE } from "./table.ts";
import type { SettingDefinition } from "./types.ts";

const ROWS = TABLE as unknown as Record<string, SettingDefinition>;

/** The crawl's settings for each host: `base`, or the host's `hosts` entry over it (see src/settings/hosts.ts). */
export function settingsByHost<T extends object>(
  base: T,
  hosts: Record<string, Record<string, unknown>> | undefined,
): (host: string) => T {
  return hostSettings(base, hosts, ROWS);
}

/** Whether a host's `hosts` entry says to render all its requests. */
export function hostRenders(hosts: Record<string, Record<string, unknown>> | undefined): (host: string) => boolean {
  const of = settingsByHost<{ render?: unknown }>({}, hosts);
  return (host) => of(host).render === true;
}
