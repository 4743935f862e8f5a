/**
 * The one table of settings: TypeScript name, command-line and HTTP name, type, default, check and one-line doc.
 * Parsing `-s KEY=VALUE`, validating `new Settings({...})`, the docs page and `netweir crawl --help` all read it.
 */
import { VERSION } from "../version.ts";
import type { SettingDefinition, SettingType } from "./types.ts";
import { type Monitors, monitorsProblem } from "./monitor_rules.ts";
import { normaliseHosts } from "./hosts.ts";
import { endpointProblem } from "./browser_endpoint.ts";
import { dnsServersProblem } from "./dns_servers.ts";

function setting<T>(row: SettingRow<T>): SettingRow<T> {
  return row;
}

const atLeast = (min: number) => (value: number | null) =>
  value !== null && value < min ? `must be at least ${min}` : undefined;
/** A webhook must be an absolute http(s) URL: anything else would fail at the job's end, long after it was given. */
function webhookProblem(value: string | null): string | undefined {
  if (value === null) return undefined;
  const url = URL.parse(value);
  return url && (url.protocol === "http:" || url.protocol === "https:") && url.host !== ""
    ? undefined
    : "must be an http:// or https:// URL";
}
const positive = (value: number | null) => value !== null && value <= 0 ? "must be greater than 0" : undefined;

/** The resource types `browserBlock` may name: Chromium's, in lower case. */
export const BROWSER_RESOURCE_TYPES = [
  "stylesheet",
  "image",
  "media",
  "font",
  "script",
  "texttrack",
  "xhr",
  "fetch",
  "eventsource",
  "websocket",
  "manifest",
  "other",
];

/**
 * Whether a `browserBlock` entry is a URL pattern rather than a resource type: it has a `*` or something only a URL has
 * (`/`, `.`, `:`). A bare word that is no resource type (`pictures`) is neither, and refused as a typo.
 */
export function isBlockPattern(entry: string): boolean {
  return /[*/.:]/.test(entry);
}

/** The `browserBlock` check: every entry a resource type or a URL pattern. */
function checkBrowserBlock(list: string[]): string | undefined {
  if (list.every((entry) => BROWSER_RESOURCE_TYPES.includes(entry) || isBlockPattern(entry))) return undefined;
  return `must be resource types among ${BROWSER_RESOURCE_TYPES.join(", ")}, or URL globs (with a *, / or .)`;
}

/** The `hosts` setting's check: each entry's keys and values by the rows they name (src/settings/hosts.ts). */
function checkHosts(value: Record<string, Record<string, unknown>>): string | undefined {
  try {
    normaliseHosts(value, TABLE as unknown as Record<string, SettingDefinition>);
    return undefined;
  } catch (error) {
    return `has a bad entry: ${(error as Error).message}`;
  }
}

/** User-agent sent when a spider does not set its own. */
export const DEFAULT_USER_AGENT = `netweir/${VERSION}`;

/**
 * Every setting's value type, by its TypeScript name. Written out, not inferred from {@link TABLE}, because a package
 * on JSR must give its public API explicit types (`deno publish` refuses inferred ones as slow). A row added to the
 * table needs its line here too: TypeScript names the one missing on either side.
 */
export type SettingValues = {
  concurrency: number;
  perDomain: number;
  minDelay: number;
  maxDelay: number;
  autothrottle: boolean;
  autothrottleTarget: number;
  hosts: Record<string, Record<string, unknown>>;
  maxDepth: number | null;
  trapDetection: boolean;
  maxUrlLength: number;
  timeout: number;
  maxRedirects: number;
  retries: number;
  retryHttpCodes: number[];
  retryBackoff: number;
  cookies: boolean;
  httpAuth: Record<string, { user: string; password: string }>;
  proxies: string[];
  proxyRotation: string | null;
  sessions: number;
  sessionMaxUsage: number;
  sessionMaxErrorScore: number;
  sessionUserAgents: string[];
  userAgent: string;
  defaultHeaders: Record<string, string>;
  maxBodySize: number;
  http2: string;
  dnsCache: boolean;
  dnsServers: string[];
  dnsTimeout: number;
  dnsMinTtl: number;
  dnsMaxTtl: number;
  dnsNegativeTtl: number;
  dnsCacheSize: number;
  obeyRobotsTxt: boolean;
  robotsTxtErrors: string;
  maxItems: number | null;
  maxPages: number | null;
  maxErrors: number | null;
  maxTime: number | null;
  maxMemory: number | null;
  maxPagesPerDomain: number | null;
  monitors: Monitors | null;
  alertWebhook: string | null;
  alertStart: boolean;
  profile: string | null;
  queue: string | null;
  queueKey: string | null;
  queueIdle: number | null;
  queueLease: number;
  politenessScope: string;
  queueEntryMaxBytes: number;
  queueEntryMaxDepth: number;
  queueEntryMaxHeaders: number;
  checkpoint: string | null;
  cache: string | null;
  deltafetch: string | null;
  warc: string | null;
  har: string | null;
  workers: number;
  browserPath: string | null;
  browserEndpoint: string | null;
  browserTabs: number;
  browserUploadDir: string | null;
  browserMemory: number | null;
  browserBlock: string[];
  browserInitScript: string | null;
  render: string | null;
  renderAutoSample: number;
  renderAutoRecheck: number;
  logLevel: string;
  statsFile: string | null;
  statsInterval: number;
  logFormat: string;
  logInterval: number;
  progress: boolean | null;
};

/** Setting names as TypeScript spells them. */
export type SettingKey = keyof SettingValues;

/** A row of the table before its key is filled in. */
export type SettingRow<T> = Omit<SettingDefinition<T>, "key">;

/**
 * Every setting, keyed by its TypeScript name: its command-line name, type, default, check and one line of doc. The
 * one table that `Settings`, `-s`, the docs and `netweir settings` all read.
 */
export const TABLE: { [K in SettingKey]: SettingRow<SettingValues[K]> } = {
  // Scheduling and politeness (C7)
  concurrency: setting<number>({
    cli: "concurrency",
    type: "int",
    default: 16,
    check: atLeast(1),
    doc: "Requests in flight at once in this process",
  }),
  perDomain: setting<number>({
    cli: "per_domain",
    type: "int",
    default: 8,
    check: atLeast(1),
    doc: "Requests in flight at once to one host",
  }),
  minDelay: setting<number>({
    cli: "min_delay",
    type: "float",
    default: 0,
    check: atLeast(0),
    doc: "Seconds between two requests to one host, at least",
  }),
  maxDelay: setting<number>({
    cli: "max_delay",
    type: "float",
    default: 60,
    check: atLeast(0),
    doc: "Seconds between two requests to one host, at most, however slow the site gets",
  }),
  autothrottle: setting<boolean>({
    cli: "autothrottle",
    type: "bool",
    default: true,
    doc: "Adjust the delay between minDelay and maxDelay from latency, 429/503 answers and Retry-After",
  }),
  autothrottleTarget: setting<number>({
    cli: "autothrottle_target",
    type: "float",
    default: 4,
    check: positive,
    doc: "Requests the autothrottle aims to keep in flight to one host on average",
  }),
  maxDepth: setting<number | null>({
    cli: "max_depth",
    type: "int",
    nullable: true,
    default: null,
    check: atLeast(0),
    doc: "Links followed from a start request, at most (null: no limit)",
  }),
  trapDetection: setting<boolean>({
    cli: "trap_detection",
    type: "bool",
    default: true,
    doc: "Drop URLs that look like crawler traps: repeating path segments, very deep paths, endless query strings",
  }),
  maxUrlLength: setting<number>({
    cli: "max_url_length",
    type: "int",
    default: 2083,
    check: atLeast(16),
    doc: "Longest URL followed; longer ones are dropped as traps",
  }),
  // Downloading (C8, C9)
  timeout: setting<number>({
    cli: "timeout",
    type: "float",
    default: 30,
    check: positive,
    doc: "Seconds to wait for a whole response",
  }),
  maxRedirects: setting<number>({
    cli: "max_redirects",
    type: "int",
    default: 20,
    check: atLeast(0),
    doc: "Redirects followed for one request, at most",
  }),
  retries: setting<number>({
    cli: "retries",
    type: "int",
    default: 2,
    check: atLeast(0),
    doc: "Times a request is tried again after a network error, a timeout, a 5xx or a 429",
  }),
  retryHttpCodes: setting<number[]>({
    cli: "retry_http_codes",
    type: "ints",
    default: [500, 502, 503, 504, 522, 524, 408, 429],
    doc: "HTTP statuses that are retried",
  }),
  retryBackoff: setting<number>({
    cli: "retry_backoff",
    type: "float",
    default: 1,
    check: atLeast(0),
    doc: "Seconds before the first retry; each further retry waits twice as long (Retry-After wins when longer)",
  }),
  cookies: setting<boolean>({
    cli: "cookies",
    type: "bool",
    default: true,
    doc: "Keep cookies in a jar of this process's own and send them back",
  }),
  httpAuth: setting<Record<string, { user: string; password: string }>>({
    cli: "http_auth",
    type: "auth-map",
    default: {},
    doc: "Basic auth per host, HOST=USER:PASSWORD[,HOST=USER:PASSWORD]; sent only to that host and its subdomains",
  }),
  proxies: setting<string[]>({
    cli: "proxies",
    type: "strings",
    default: [],
    check: (list) =>
      list.find((p) => !/^(https?|socks5h?|socks4a):\/\//.test(p)) &&
      "must be http://, https://, socks5://, socks5h:// or socks4a:// URLs",
    doc: "Proxy URLs to send requests through (http, https, socks5, socks5h, socks4a; user:password@ for a login)",
  }),
  proxyRotation: setting<string | null>({
    cli: "proxy_rotation",
    type: "string",
    nullable: true,
    choices: ["per_request", "per_domain"],
    default: null,
    doc: "How proxies are chosen: per_request (round robin) or per_domain (one proxy per host); needs proxies",
  }),
  sessions: setting<number>({
    cli: "sessions",
    type: "int",
    default: 0,
    check: atLeast(0),
    doc: "Sessions to crawl as, each with its own cookies, proxy, user agent, headers and browser context (0: off)",
  }),
  sessionMaxUsage: setting<number>({
    cli: "session_max_usage",
    type: "int",
    default: 50,
    check: atLeast(1),
    doc: "Requests a session is used for before it is retired and a new one takes its place",
  }),
  sessionMaxErrorScore: setting<number>({
    cli: "session_max_error_score",
    type: "float",
    default: 3,
    check: (value) => value > 0 ? undefined : "must be above 0",
    doc: "Error score at which a session is retired (+1 a failed request, -0.5 a good page)",
  }),
  sessionUserAgents: setting<string[]>({
    cli: "session_user_agents",
    type: "strings",
    default: [],
    doc: "User agents handed to new sessions in turn (empty: every session sends user_agent)",
  }),
  userAgent: setting<string>({
    cli: "user_agent",
    type: "string",
    default: DEFAULT_USER_AGENT,
    doc: "User-Agent header",
  }),
  defaultHeaders: setting<Record<string, string>>({
    cli: "default_headers",
    type: "headers",
    default: { "accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "accept-language": "en" },
    doc: "Headers sent with every request unless the request sets them (JSON object on the command line)",
  }),
  hosts: setting<Record<string, Record<string, unknown>>>({
    cli: "hosts",
    type: "hosts",
    default: {},
    check: checkHosts,
    doc: 'Settings for some hosts: {"api.example.com": {"per_domain": 1}, "*.cdn.example.com": {...}}; ' +
      "the most specific pattern wins (keys: per_domain, min_delay, max_delay, autothrottle, proxies, proxy_rotation, " +
      "default_headers, user_agent, timeout, http2, render)",
  }),
  maxBodySize: setting<number>({
    cli: "max_body_size",
    type: "int",
    default: 64 * 1024 * 1024,
    check: atLeast(1),
    doc: "Largest response body in bytes; bigger responses fail",
  }),
  http2: setting<string>({
    cli: "http2",
    type: "string",
    choices: ["auto", "off", "only"],
    default: "auto",
    doc: "HTTP/2: auto (offered by ALPN on https, used where the server picks it), off (HTTP/1.1 only) or only " +
      "(HTTP/2 only; h2c with prior knowledge on plain http)",
  }),
  // Host names (docs/crawling.md, "Host names (DNS)")
  dnsCache: setting<boolean>({
    cli: "dns_cache",
    type: "bool",
    default: true,
    doc: "Look each host name up once per the TTL of its DNS records and keep the answer; false: every new " +
      "connection looks its host up again",
  }),
  dnsServers: setting<string[]>({
    cli: "dns_servers",
    type: "strings",
    default: [],
    check: dnsServersProblem,
    doc: "DNS servers to ask, as addresses with an optional port (127.0.0.1:5353 for a local unbound); " +
      "empty: the system's, with its own lookup as the fallback",
  }),
  dnsTimeout: setting<number>({
    cli: "dns_timeout",
    type: "float",
    default: 5,
    check: positive,
    doc: "Seconds to wait for a DNS answer before the request fails with a DNS error",
  }),
  dnsMinTtl: setting<number>({
    cli: "dns_min_ttl",
    type: "float",
    default: 10,
    check: atLeast(0),
    doc: "Seconds a DNS answer is kept at least, however short its TTL",
  }),
  dnsMaxTtl: setting<number>({
    cli: "dns_max_ttl",
    type: "float",
    default: 3600,
    check: atLeast(0),
    doc: "Seconds a DNS answer is kept at most, however long its TTL",
  }),
  dnsNegativeTtl: setting<number>({
    cli: "dns_negative_ttl",
    type: "float",
    default: 10,
    check: atLeast(0),
    doc: "Seconds a failed DNS lookup is kept before the name is asked again",
  }),
  dnsCacheSize: setting<number>({
    cli: "dns_cache_size",
    type: "int",
    default: 10_000,
    check: atLeast(1),
    doc: "Host names kept in the DNS cache at most; past it the least recently used go",
  }),
  obeyRobotsTxt: setting<boolean>({
    cli: "obey_robots_txt",
    type: "bool",
    default: true,
    doc: "Fetch robots.txt once per host, skip what it disallows and wait its Crawl-delay",
  }),
  robotsTxtErrors: setting<string>({
    cli: "robots_txt_errors",
    type: "string",
    choices: ["allow", "disallow"],
    default: "allow",
    doc: "What a robots.txt answering 5xx or unreachable means: allow everything (as Scrapy) or disallow (RFC 9309)",
  }),
  // Limits (C11)
  maxItems: setting<number | null>({
    cli: "max_items",
    type: "int",
    nullable: true,
    default: null,
    check: atLeast(1),
    doc: "Stop after this many items",
  }),
  maxPages: setting<number | null>({
    cli: "max_pages",
    type: "int",
    nullable: true,
    default: null,
    check: atLeast(1),
    doc: "Stop after this many pages",
  }),
  maxErrors: setting<number | null>({
    cli: "max_errors",
    type: "int",
    nullable: true,
    default: null,
    check: atLeast(1),
    doc: "Stop after this many errors (failed requests and callbacks that threw)",
  }),
  maxTime: setting<number | null>({
    cli: "max_time",
    type: "float",
    nullable: true,
    default: null,
    check: positive,
    doc: "Stop after this many seconds",
  }),
  maxMemory: setting<number | null>({
    cli: "max_memory",
    type: "int",
    nullable: true,
    default: null,
    check: atLeast(1),
    doc: "Stop when the process's resident memory passes this many MiB",
  }),
  maxPagesPerDomain: setting<number | null>({
    cli: "max_pages_per_domain",
    type: "int",
    nullable: true,
    default: null,
    check: atLeast(1),
    doc: "Requests taken for one host, at most; the rest are dropped",
  }),
  // Item-quality monitors, judged at the crawl's end (docs/monitors.md)
  monitors: setting<Monitors | null>({
    cli: "monitors",
    type: "object",
    nullable: true,
    default: null,
    check: monitorsProblem,
    doc: "Rules the crawl's items must meet (min_items, max_error_rate, max_dropped, coverage, schema); " +
      "netweir crawl exits 1 when one fails",
  }),
  // Alerts of netweir serve's jobs (docs/serve.md); netweir crawl itself ignores them
  alertWebhook: setting<string | null>({
    cli: "alert_webhook",
    type: "string",
    nullable: true,
    default: null,
    check: webhookProblem,
    doc: "Used by netweir serve: an http(s) URL called with the job's outcome and stats when it ends (Slack and " +
      "Mattermost incoming webhooks take it as it is)",
  }),
  alertStart: setting<boolean>({
    cli: "alert_start",
    type: "bool",
    default: false,
    doc: "Used by netweir serve: call alert_webhook when the job starts too",
  }),
  // Profiles (C17)
  profile: setting<string | null>({
    cli: "profile",
    type: "string",
    nullable: true,
    default: null,
    doc: "A named bundle of settings: polite, fast, or one of the spider's own profiles",
  }),
  // Queue (distributed crawls)
  queue: setting<string | null>({
    cli: "queue",
    type: "string",
    nullable: true,
    emptyIsMistake: true,
    default: null,
    doc: "Where requests wait: null for this process's memory, redis://host:port/db for a queue shared by processes",
  }),
  queueKey: setting<string | null>({
    cli: "queue_key",
    type: "string",
    nullable: true,
    emptyIsMistake: true,
    default: null,
    doc: "Name of the crawl's keys in a shared queue (default: the spider's name)",
  }),
  queueIdle: setting<number | null>({
    cli: "queue_idle",
    type: "float",
    nullable: true,
    default: 30,
    check: atLeast(0),
    doc: "Seconds the shared queue must stay empty, with nobody busy, before a process ends (null: never)",
  }),
  queueLease: setting<number>({
    cli: "queue_lease",
    type: "float",
    default: 60,
    check: positive,
    doc: "Seconds of silence after which a process is taken for dead and its requests go back to the queue",
  }),
  politenessScope: setting<string>({
    cli: "politeness_scope",
    type: "string",
    choices: ["process", "crawl"],
    default: "process",
    doc:
      "Whom per_domain, min_delay and Crawl-delay bind: each process on its own, or (crawl) a shared queue's whole crawl",
  }),
  queueEntryMaxBytes: setting<number>({
    cli: "queue_entry_max_bytes",
    type: "int",
    default: 1024 * 1024,
    check: atLeast(1024),
    doc:
      "Bytes one request may take in the shared queue or a checkpoint; a bigger one is not queued, or dropped as queue_bad",
  }),
  queueEntryMaxDepth: setting<number>({
    cli: "queue_entry_max_depth",
    type: "int",
    default: 64,
    check: atLeast(4),
    doc: "How deep a queued request's JSON (its meta, cbKwargs, steps) may nest; deeper is not queued, or dropped",
  }),
  queueEntryMaxHeaders: setting<number>({
    cli: "queue_entry_max_headers",
    type: "int",
    default: 100,
    check: atLeast(1),
    doc: "Headers a queued request may have; more are not queued, or dropped as queue_bad",
  }),
  // State and output
  checkpoint: setting<string | null>({
    cli: "checkpoint",
    type: "string",
    nullable: true,
    emptyIsMistake: true,
    default: null,
    doc: "Directory keeping the queue, duplicate filter and stats, so the same command carries on",
  }),
  cache: setting<string | null>({
    cli: "cache",
    type: "string",
    nullable: true,
    emptyIsMistake: true,
    default: null,
    doc: "Directory of cached responses that later runs are answered from",
  }),
  deltafetch: setting<string | null>({
    cli: "deltafetch",
    type: "string",
    nullable: true,
    emptyIsMistake: true,
    default: null,
    doc: "File remembering requests that yielded items; later runs skip them",
  }),
  warc: setting<string | null>({
    cli: "warc",
    type: "string",
    nullable: true,
    emptyIsMistake: true,
    default: null,
    doc: "WARC file of everything fetched (.warc.gz compresses each record)",
  }),
  har: setting<string | null>({
    cli: "har",
    type: "string",
    nullable: true,
    emptyIsMistake: true,
    default: null,
    doc: "HAR 1.2 file of everything fetched",
  }),
  workers: setting<number>({
    cli: "workers",
    type: "int",
    default: 0,
    check: atLeast(0),
    doc: "Worker threads running callbacks (0: callbacks run on the main thread)",
  }),
  // Browser (C23)
  browserPath: setting<string | null>({
    cli: "browser_path",
    type: "string",
    nullable: true,
    default: null,
    emptyIsMistake: true,
    doc:
      "Chrome or Chromium executable for rendering (default: chromium, chromium-browser, google-chrome or chrome on PATH)",
  }),
  browserEndpoint: setting<string | null>({
    cli: "browser_endpoint",
    type: "string",
    nullable: true,
    default: null,
    emptyIsMistake: true,
    check: (value) => value === null ? undefined : endpointProblem(value),
    doc: "A Chromium running elsewhere to render in, over DevTools: ws://HOST:PORT/devtools/browser/ID or " +
      "http://HOST:PORT (default: start one)",
  }),
  browserTabs: setting<number>({
    cli: "browser_tabs",
    type: "int",
    default: 4,
    check: atLeast(1),
    doc: "Browser tabs open at once for rendering",
  }),
  browserMemory: setting<number | null>({
    cli: "browser_memory",
    type: "int",
    nullable: true,
    default: null,
    check: atLeast(100),
    doc: "Megabytes Chromium's processes may use together before fewer tabs render at once (null: no budget)",
  }),
  browserUploadDir: setting<string | null>({
    cli: "browser_upload_dir",
    type: "string",
    nullable: true,
    default: null,
    emptyIsMistake: true,
    doc: "The only directory set_input_files steps may upload from (without it, no request may upload)",
  }),
  browserBlock: setting<string[]>({
    cli: "browser_block",
    type: "strings",
    default: ["image", "font", "media"],
    check: checkBrowserBlock,
    doc: "Resource types and URL globs rendered pages do not load (an empty list loads everything)",
  }),
  browserInitScript: setting<string | null>({
    cli: "browser_init_script",
    type: "string",
    nullable: true,
    default: null,
    emptyIsMistake: true,
    doc: "Script (or a .js file of it) run in every rendered page before the page's own scripts",
  }),
  render: setting<string | null>({
    cli: "render",
    type: "string",
    nullable: true,
    choices: ["auto"],
    default: null,
    doc: 'auto: every request without render: true or steps is render: "auto" (null: as each request says)',
  }),
  renderAutoSample: setting<number>({
    cli: "render_auto_sample",
    type: "int",
    default: 3,
    check: atLeast(1),
    doc:
      'Pages of a kind render: "auto" renders and compares with the plain document before it stops rendering the kind',
  }),
  renderAutoRecheck: setting<number>({
    cli: "render_auto_recheck",
    type: "float",
    default: 0.005,
    check: (value) => value < 0 || value > 1 ? "must be between 0 and 1" : undefined,
    doc: 'Share of a plain kind\'s later pages render: "auto" renders and compares again, to catch a change (0: never)',
  }),
  // Logs and stats (C14)
  logLevel: setting<string>({
    cli: "log_level",
    type: "string",
    choices: ["debug", "info", "warning", "error"],
    default: "info",
    doc: "Least important log lines shown",
  }),
  statsFile: setting<string | null>({
    cli: "stats_file",
    type: "string",
    nullable: true,
    default: null,
    doc: "File the stats are written to every statsInterval seconds and at the end, as JSON",
  }),
  statsInterval: setting<number>({
    cli: "stats_interval",
    type: "float",
    default: 5,
    check: positive,
    doc: "Seconds between two writes of the stats file",
  }),
  logFormat: setting<string>({
    cli: "log_format",
    type: "string",
    default: "netweir",
    choices: ["netweir", "scrapy"],
    doc: "How log lines look: netweir (ISO time, LEVEL message) or scrapy (local time, [netweir] LEVEL: message, " +
      "as Scrapy writes them, for tools that read Scrapy logs)",
  }),
  logInterval: setting<number>({
    cli: "log_interval",
    type: "float",
    default: 60,
    check: positive,
    doc:
      "Seconds between two progress lines in the log when there is no live progress line (Scrapy's LOGSTATS_INTERVAL)",
  }),
  progress: setting<boolean | null>({
    cli: "progress",
    type: "bool",
    nullable: true,
    default: null,
    doc: "Live progress line on standard error (null: only when it is a terminal)",
  }),
};

/** The table, with each row's TypeScript key filled in. */
export const SETTINGS: readonly SettingDefinition[] = Object.entries(TABLE).map(([key, row]) => ({
  key,
  ...row,
} as SettingDefinition));

const byName = new Map<string, SettingDefinition>();
for (const row of SETTINGS) {
  byName.set(row.key, row);
  byName.set(row.cli, row);
}

/** The row for a setting in either spelling, or undefined. */
export function findSetting(name: string): SettingDefinition | undefined {
  return byName.get(name);
}

/** The names closest to an unknown one, for "did you mean" hints. */
export function nearestSetting(name: string): string | undefined {
  let best: { name: string; distance: number } | undefined;
  const wanted = name.toLowerCase();
  for (const row of SETTINGS) {
    for (const candidate of [row.cli, row.key]) {
      const distance = editDistance(wanted, candidate.toLowerCase());
      if (!best || distance < best.distance) best = { name: row.cli, distance };
    }
  }
  return best && best.distance <= Math.max(2, Math.floor(wanted.length / 3)) ? best.name : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}

export type { SettingType };
