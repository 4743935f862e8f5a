/**
 * Per-host settings (the `hosts` setting): `{ "api.example.com": { perDomain: 1 }, "*.cdn.example.com": { ... } }`.
 * A pattern is a host name, or `*.` and a domain, which holds the domain's subdomains (not the domain itself, as in
 * a TLS certificate). For a request's host the most specific pattern wins, whole: the exact name, else the wildcard
 * with the longest domain; what that entry leaves out comes from the crawl's own settings. Keys are the crawl
 * settings' own names, in either spelling (`perDomain` or `per_domain`), checked with the same rules.
 */
import { validateSetting } from "./coerce.ts";
import type { SettingDefinition } from "./types.ts";

/** What one host's entry may set, by TypeScript name. */
export const HOST_KEYS = [
  "perDomain",
  "minDelay",
  "maxDelay",
  "autothrottle",
  "proxies",
  "proxyRotation",
  "defaultHeaders",
  "userAgent",
  "timeout",
  "http2",
] as const;

/** Keys that are no crawl setting of their own: `render` sends every request to the host through the browser. */
const OWN_KEYS = ["render"] as const;

export type HostKey = typeof HOST_KEYS[number] | typeof OWN_KEYS[number];

/** One host's entry, normalised to TypeScript names. */
export type HostEntry = Partial<Record<HostKey, unknown>>;

/** The `hosts` setting's value after its check: patterns (lower case) to entries. */
export type HostsSetting = Record<string, HostEntry>;

/** A pattern: a host name (letters, digits, hyphens, dots; an IPv4 address) or `*.` before one. */
const PATTERN = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

/**
 * Checks a `hosts` value against the rows of the settings table it names; returns it with patterns in lower case and
 * keys in TypeScript spelling. Throws the table's SettingsError for a bad value, or a TypeError saying what is wrong
 * with a pattern or a key (the caller names the setting).
 */
export function normaliseHosts(value: Record<string, unknown>, rows: Record<string, SettingDefinition>): HostsSetting {
  const byCli = new Map<string, HostKey>(HOST_KEYS.map((key) => [rows[key].cli, key]));
  const known = [...HOST_KEYS.map((key) => rows[key].cli), ...OWN_KEYS];
  const out: HostsSetting = {};
  for (const [pattern, entry] of Object.entries(value)) {
    const name = pattern.trim().toLowerCase().replace(/\.$/, "");
    if (!PATTERN.test(name)) {
      throw new TypeError(`${JSON.stringify(pattern)} is not a host name or *.domain pattern`);
    }
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      throw new TypeError(`${pattern} must map to an object of settings`);
    }
    const normal: HostEntry = {};
    for (const [given, setting] of Object.entries(entry)) {
      const key = [...HOST_KEYS, ...OWN_KEYS].includes(given as HostKey) ? given as HostKey : byCli.get(given);
      if (key === undefined) {
        throw new TypeError(`${pattern}: ${given} is not a per-host setting (those are ${known.join(", ")})`);
      }
      if (key === "render") {
        // Not "auto": whether to render is decided per kind of page, which the host is already part of, by the
        // request, its rule or the `render` setting; see docs/browser.md.
        if (typeof setting !== "boolean") {
          const hint = setting === "auto" ? ` ("auto" is for requests, rules and the render setting)` : "";
          throw new TypeError(`${pattern}: render must be true or false${hint}`);
        }
        normal.render = setting;
        continue;
      }
      try {
        normal[key] = validateSetting(rows[key], setting);
      } catch (error) {
        throw new TypeError(`${pattern}: ${(error as Error).message}`);
      }
    }
    out[name] = normal;
  }
  return out;
}

/** The entry of the most specific pattern that holds `host`, or undefined when none does. */
export function hostEntry(hosts: HostsSetting, host: string): HostEntry | undefined {
  const name = host.toLowerCase().replace(/\.$/, "");
  const exact = hosts[name];
  if (exact !== undefined) return exact;
  // Each parent domain of the host, nearest first: the first with a wildcard entry is the longest match.
  for (let dot = name.indexOf("."); dot >= 0; dot = name.indexOf(".", dot + 1)) {
    const wildcard = hosts[`*${name.slice(dot)}`];
    if (wildcard !== undefined) return wildcard;
  }
  return undefined;
}

/**
 * The crawl's settings for each host: `base` with the host's entry over it, or `base` itself when no entry holds
 * the host. Made once per crawl part (slots, downloader) from the checked `hosts` setting.
 */
export function hostSettings<T extends object>(
  base: T,
  hosts: Record<string, Record<string, unknown>> | undefined,
  rows: Record<string, SettingDefinition>,
): (host: string) => T {
  if (hosts === undefined || Object.keys(hosts).length === 0) return () => base;
  const normal = normaliseHosts(hosts, rows);
  const merged = new Map<HostEntry, T>();
  return (host) => {
    const entry = hostEntry(normal, host);
    if (entry === undefined) return base;
    let settings = merged.get(entry);
    if (settings === undefined) merged.set(entry, settings = { ...base, ...entry });
    return settings;
  };
}
