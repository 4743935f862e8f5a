/**
 * Netweir: write a spider in a few lines, crawl one site or a million pages.
 *
 * @example
 * ```ts ignore
 * import { Spider, type Page } from "netweir";
 *
 * export class Books extends Spider {
 *   override startUrls = ["https://books.toscrape.com/"];
 *   override *parse(page: Page) {
 *     for (const href of page.css("article.product_pod h3 a").attrs("href")) {
 *       yield page.follow(href, { callback: this.parseBook });
 *     }
 *   }
 *   parseBook(page: Page) {
 *     return { title: page.css("h1").text(), url: page.url };
 *   }
 * }
 * ```
 *
 * @module
 */
export { Spider, type SpiderClass, spiderName } from "./src/spider/spider.ts";
export { Request, type RequestAuth, type RequestInit, type RequestOptions, type Step } from "./src/spider/request.ts";
export { Page } from "./src/spider/page.ts";
export { Selection } from "./src/spider/selection.ts";
export { Rule } from "./src/spider/rule.ts";
export type { SitemapPattern } from "./src/spider/sitemap.ts";
export type { CallbackResult, Item, Logger } from "./src/spider/types.ts";
export type { Pipeline } from "./src/spider/pipeline.ts";
export type { RequestMiddleware, ResponseMiddleware } from "./src/spider/middleware.ts";
export { type FetchedResponse, makeResponse, type Rendered } from "./src/spider/response.ts";
export type { BrowserPage } from "./src/browser/types.ts";
export { Settings, type SettingsInit } from "./src/settings/settings.ts";
export { type SettingKey, SETTINGS, type SettingValues } from "./src/settings/table.ts";
export { checkSettings, resolveCrawlSettings, type SettingsSources } from "./src/settings/check.ts";
export { BUILTIN_PROFILES } from "./src/settings/profiles.ts";
export { FetchError, QueueError, SettingsError, UsageError } from "./src/errors.ts";
export { Crawl, type CrawlOptions } from "./src/engine/crawl.ts";
export type { ItemSink } from "./src/engine/items.ts";
export type { StatsRecord } from "./src/engine/stats.ts";
export { HttpStatusError } from "./src/engine/page_flow.ts";
export { BlockedError } from "./src/fetch/blocks.ts";
export type { Frontier, FrontierStatus, Lease, LeaseOptions } from "./src/queue/frontier.ts";
export { MemoryFrontier } from "./src/queue/memory.ts";
export { type PushOptions, type PushResult, Queue, type QueueOptions } from "./src/queue/queue.ts";
export { canonicalUrl, fingerprint } from "./src/spider/fingerprint.ts";
export { type RunOptions, runSpider } from "./src/run.ts";
