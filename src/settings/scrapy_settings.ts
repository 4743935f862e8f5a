/**
 * Scrapy's setting names (and those of scrapy-redis, scrapy-deltafetch and scrapy-playwright) that have a Netweir
 * equivalent, and what that is. `-s DOWNLOAD_DELAY=2` would otherwise be refused as an unknown setting with no hint,
 * or a hint to a setting of a similar spelling and another meaning; with this table the refusal names Netweir's
 * setting. The names are refused, not translated: a value in Scrapy's units or form would be read wrongly
 * (CLOSESPIDER_TIMEOUT is seconds as max_time is, but MEMUSAGE_LIMIT_MB is MB and max_memory MiB, HTTPCACHE_ENABLED
 * is a flag and cache a directory). docs/settings.md lists the table (scripts/gen_settings_doc.ts).
 */

/** A Scrapy setting and what to use instead: a Netweir setting's name, or a sentence in `instead`. */
export interface ScrapySetting {
  scrapy: string;
  /** The Netweir setting, in its command-line spelling. */
  netweir?: string;
  /** What to do instead when it is not one setting, or a note on how the value differs. */
  note?: string;
}

/** Every Scrapy setting name with a Netweir equivalent, in Scrapy's upper case. */
export const SCRAPY_SETTINGS: readonly ScrapySetting[] = [
  { scrapy: "CONCURRENT_REQUESTS", netweir: "concurrency" },
  { scrapy: "CONCURRENT_REQUESTS_PER_DOMAIN", netweir: "per_domain" },
  { scrapy: "CONCURRENT_REQUESTS_PER_IP", netweir: "per_domain" },
  { scrapy: "DOWNLOAD_DELAY", netweir: "min_delay" },
  { scrapy: "AUTOTHROTTLE_ENABLED", netweir: "autothrottle" },
  { scrapy: "AUTOTHROTTLE_START_DELAY", netweir: "min_delay" },
  { scrapy: "AUTOTHROTTLE_MAX_DELAY", netweir: "max_delay" },
  { scrapy: "AUTOTHROTTLE_TARGET_CONCURRENCY", netweir: "autothrottle_target" },
  { scrapy: "DEPTH_LIMIT", netweir: "max_depth", note: "null for no limit, where Scrapy writes 0" },
  { scrapy: "DOWNLOAD_TIMEOUT", netweir: "timeout" },
  { scrapy: "REDIRECT_MAX_TIMES", netweir: "max_redirects" },
  { scrapy: "REDIRECT_ENABLED", netweir: "max_redirects", note: "0 turns redirects off" },
  { scrapy: "RETRY_TIMES", netweir: "retries" },
  { scrapy: "RETRY_ENABLED", netweir: "retries", note: "0 turns retries off" },
  { scrapy: "RETRY_HTTP_CODES", netweir: "retry_http_codes" },
  { scrapy: "COOKIES_ENABLED", netweir: "cookies" },
  { scrapy: "USER_AGENT", netweir: "user_agent" },
  { scrapy: "DEFAULT_REQUEST_HEADERS", netweir: "default_headers" },
  { scrapy: "DOWNLOAD_MAXSIZE", netweir: "max_body_size" },
  { scrapy: "ROBOTSTXT_OBEY", netweir: "obey_robots_txt" },
  { scrapy: "DNSCACHE_ENABLED", netweir: "dns_cache", note: "answers kept for their TTL, not for ever" },
  { scrapy: "DNSCACHE_SIZE", netweir: "dns_cache_size" },
  { scrapy: "DNS_TIMEOUT", netweir: "dns_timeout" },
  { scrapy: "DNS_RESOLVER", netweir: "dns_servers", note: "the DNS servers to ask, not a resolver class" },
  { scrapy: "CLOSESPIDER_ITEMCOUNT", netweir: "max_items" },
  { scrapy: "CLOSESPIDER_PAGECOUNT", netweir: "max_pages" },
  { scrapy: "CLOSESPIDER_ERRORCOUNT", netweir: "max_errors" },
  { scrapy: "CLOSESPIDER_TIMEOUT", netweir: "max_time" },
  { scrapy: "MEMUSAGE_LIMIT_MB", netweir: "max_memory", note: "in MiB" },
  { scrapy: "JOBDIR", netweir: "checkpoint" },
  { scrapy: "HTTPCACHE_ENABLED", netweir: "cache", note: "a directory, not a flag" },
  { scrapy: "HTTPCACHE_DIR", netweir: "cache" },
  { scrapy: "LOG_LEVEL", netweir: "log_level" },
  { scrapy: "LOGSTATS_INTERVAL", netweir: "log_interval" },
  { scrapy: "REDIS_URL", netweir: "queue" },
  { scrapy: "SCHEDULER_QUEUE_KEY", netweir: "queue_key" },
  { scrapy: "SCHEDULER_IDLE_BEFORE_CLOSE", netweir: "queue_idle" },
  { scrapy: "DELTAFETCH_ENABLED", netweir: "deltafetch", note: "a file, not a flag" },
  { scrapy: "DELTAFETCH_DIR", netweir: "deltafetch" },
  { scrapy: "PLAYWRIGHT_MAX_PAGES_PER_CONTEXT", netweir: "browser_tabs" },
  { scrapy: "PLAYWRIGHT_ABORT_REQUEST", netweir: "browser_block" },
  { scrapy: "PLAYWRIGHT_CDP_URL", netweir: "browser_endpoint" },
  { scrapy: "ROTATING_PROXY_LIST", netweir: "proxies" },
  { scrapy: "FEEDS", note: "-o PATH or -O PATH on the command line" },
  { scrapy: "FEED_URI", note: "-o PATH or -O PATH on the command line" },
  { scrapy: "ITEM_PIPELINES", note: "the spider's pipelines property" },
  { scrapy: "DOWNLOADER_MIDDLEWARES", note: "the spider's middlewares property" },
  { scrapy: "SPIDER_MIDDLEWARES", note: "the spider's middlewares property" },
];

const BY_NAME = new Map(SCRAPY_SETTINGS.map((row) => [row.scrapy, row]));

/**
 * What to write instead of a Scrapy setting name ("min_delay", "max_depth (null for no limit, ...)"), or undefined
 * when `name` is not one. Scrapy's names are upper case; any case is recognised.
 */
export function scrapySettingAdvice(name: string): string | undefined {
  const row = BY_NAME.get(name.toUpperCase());
  if (!row) return undefined;
  if (!row.netweir) return row.note;
  return row.note ? `${row.netweir} (${row.note})` : row.netweir;
}
