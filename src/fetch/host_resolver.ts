/**
 * The crawl's host resolver (src/runtime/dns/resolver.ts) from its settings: one per Downloader, so two crawls in one
 * process share no DNS answer. None at all when the cache is off and no DNS servers are named: then every connection
 * is looked up by the runtime itself, as before the cache existed.
 */
import { createHostResolver, type HostResolver } from "../runtime/dns/resolver.ts";
import type { SettingValues } from "../settings/table.ts";

/** The settings the resolver reads. */
export type ResolverSettings = Pick<
  SettingValues,
  "dnsCache" | "dnsServers" | "dnsTimeout" | "dnsMinTtl" | "dnsMaxTtl" | "dnsNegativeTtl" | "dnsCacheSize"
>;

export function crawlResolver(settings: ResolverSettings): HostResolver | undefined {
  if (!settings.dnsCache && settings.dnsServers.length === 0) return undefined;
  return createHostResolver({
    servers: settings.dnsServers,
    cache: settings.dnsCache,
    timeout: settings.dnsTimeout,
    minTtl: settings.dnsMinTtl,
    maxTtl: settings.dnsMaxTtl,
    negativeTtl: settings.dnsNegativeTtl,
    size: settings.dnsCacheSize,
  });
}
