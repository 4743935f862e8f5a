/**
 * Shared parts of the distributed tests: starting `netweir crawl` processes on one Redis queue (each with its own
 * items file and stats file), reading what they wrote, what the fixture shop was asked for, and what Redis holds.
 */
import assert from "node:assert/strict";
import { shopSpiderMjs } from "../helpers/npm_spiders.ts";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { shopBook, shopPaths } from "../../examples/shop.ts";
import { type RunningProcess, startCli } from "../helpers/cli.ts";
import type { FixtureSite } from "../helpers/fixture_site.ts";
import type { RedisServer, RespValue } from "../helpers/redis.ts";
import { waitUntil } from "../helpers/wait.ts";

/** The distributed tests' spiders (Shop, Logins). */
export const SPIDERS: string = fileURLToPath(new URL("./fixtures/spiders.ts", import.meta.url));

/** The Shop spider for the Node build, as a user of the npm package writes it: the same name and callbacks. */
export const SHOP_MJS: string = shopSpiderMjs("shop/");

/** One crawl process and the files it writes. */
export interface Crawler {
  readonly name: string;
  readonly process: RunningProcess;
  /** Its JSON Lines items file. */
  readonly items: string;
  /** Its stats file. */
  readonly stats: string;
}

export interface CrawlerOptions {
  /** Directory for the items and stats files. */
  dir: string;
  /** Names the files: items-NAME.jsonl, stats-NAME.json. */
  name: string;
  site: FixtureSite;
  /** The queue URL. */
  queue: string;
  /** The spider in fixtures/spiders.ts (default Shop). */
  spider?: string;
  /** More `-s KEY=VALUE` settings (queue_lease=4 and queue_idle=1 are set unless overridden here). */
  settings?: string[];
  /** Extra command-line arguments. */
  args?: string[];
  /** Kills the process after this long (default 90 s): only a guard against a hanging test. */
  timeoutMs?: number;
}

/** The command-line arguments of a crawl process (for the Deno CLI and the Node build alike). */
export function crawlArgs(spiderFile: string, options: CrawlerOptions): string[] {
  const settings = ["queue_lease=4", "queue_idle=1", "stats_interval=0.5", ...(options.settings ?? [])];
  return [
    "crawl",
    spiderFile,
    ...(options.spider ? ["--spider", options.spider] : []),
    "-a",
    `site=${options.site.url}`,
    "-o",
    join(options.dir, `items-${options.name}.jsonl`),
    "--stats-file",
    join(options.dir, `stats-${options.name}.json`),
    "--queue",
    options.queue,
    ...settings.flatMap((setting) => ["-s", setting]),
    ...(options.args ?? []),
  ];
}

/** Starts `netweir crawl` (Deno, from this repository) on the queue. */
export function startCrawler(options: CrawlerOptions): Crawler {
  const process = startCli(crawlArgs(SPIDERS, { spider: "Shop", ...options }), {
    timeoutMs: options.timeoutMs ?? 90_000,
  });
  return {
    name: options.name,
    process,
    items: join(options.dir, `items-${options.name}.jsonl`),
    stats: join(options.dir, `stats-${options.name}.json`),
  };
}

/** The items of a JSON Lines file ([] when there is no file yet). */
export async function readItems(path: string): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(path, "utf8").catch(() => "");
  return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
}

/** A process's stats file. */
export async function readStats(path: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(path, "utf8"));
}

/** The URL of every book of a shop of `books` books, on `site`. */
export function bookUrls(site: FixtureSite, books: number): string[] {
  return Array.from({ length: books }, (_, i) => `${site.origin}/shop/catalogue/${shopBook(i + 1).slug}/index.html`);
}

/**
 * The paths the Shop spider fetches from a shop of `books` books: the front page, listing pages 2 on (page 1 is
 * the front page), and every book page.
 */
export function shopPagePaths(books: number): string[] {
  return shopPaths(books).filter((path) => path !== "/catalogue/page-1.html").map((path) => `/shop${path}`);
}

/** How many times the site was asked for each path under /shop/ (robots.txt and the rest left out). */
export function shopFetches(site: FixtureSite, from = 0): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of site.requests.slice(from)) {
    if (request.path.startsWith("/shop/")) counts.set(request.path, (counts.get(request.path) ?? 0) + 1);
  }
  return counts;
}

/** Paths asked for more than once. */
export function fetchedTwice(counts: Map<string, number>): string[] {
  return [...counts].filter(([, count]) => count > 1).map(([path]) => path);
}

/** Each value in the list, with how often it is there more than once. */
export function duplicates(values: readonly unknown[]): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const value of values) {
    const text = String(value);
    if (seen.has(text)) twice.add(text);
    seen.add(text);
  }
  return [...twice];
}

export { waitUntil };

/** Every value stored under `pattern`'s keys, whatever their type, as text: what someone reading Redis sees. */
export async function storedValues(redis: RedisServer, pattern: string): Promise<string[]> {
  const keys = await redis.command("KEYS", pattern) as string[];
  const values: string[] = [];
  for (const key of keys) {
    const type = await redis.command("TYPE", key);
    let value: RespValue;
    if (type === "list") value = await redis.command("LRANGE", key, 0, -1);
    else if (type === "hash") value = await redis.command("HGETALL", key);
    else if (type === "zset") value = await redis.command("ZRANGE", key, 0, -1);
    else if (type === "string") value = await redis.command("GET", key);
    else value = null;
    values.push(`${key} ${JSON.stringify(value)}`);
  }
  return values;
}

/** Deletes every key of the crawl `key` (what `netweir queue clear` does), with the test's own client. */
export async function deleteQueueKeys(redis: RedisServer, key: string): Promise<number> {
  const keys = await redis.command("KEYS", `netweir:{${key}}:*`) as string[];
  if (keys.length === 0) return 0;
  return Number(await redis.command("DEL", ...keys));
}

/**
 * Waits for every crawler to end, and checks that each exited 0 and that the union of their items files has every
 * book of the shop on `site`. Returns their stats.
 */
export async function expectEveryBook(
  site: FixtureSite,
  books: number,
  crawlers: readonly Crawler[],
): Promise<Array<Record<string, unknown>>> {
  const logs: string[] = [];
  for (const crawler of crawlers) {
    const result = await crawler.process.wait();
    assert.equal(result.code, 0, result.stderr);
    logs.push(result.stderr);
  }
  const files = await Promise.all(crawlers.map((crawler) => readItems(crawler.items)));
  const urls = new Set(files.flat().map((item) => item.url));
  const missing = bookUrls(site, books).filter((url) => !urls.has(url));
  if (missing.length > 0) {
    // What each process said and counted: a page lost with exit 0 is the failure these tests exist for, and one that
    // shows only under load must be readable from the CI log alone.
    const stats = await Promise.all(crawlers.map((crawler) => readStats(crawler.stats).catch(() => ({}))));
    const said = logs.map((log, i) =>
      `--- process ${i}: ${JSON.stringify(stats[i])}\n${log.split("\n").slice(-40).join("\n")}`
    );
    assert.fail(`${missing.length} books missing (${missing.slice(0, 5).join(" ")} ...)\n${said.join("\n")}`);
  }
  return await Promise.all(crawlers.map((crawler) => readStats(crawler.stats)));
}
