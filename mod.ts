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
// First, so that it is evaluated before any module that needs Node 22.12.
import "./src/runtime/require_new_node.ts";
export { Spider, type SpiderClass, spiderName } from "./src/spider/spider.ts";
export {
  type CallbackRef,
  type RenderOption,
  Request,
  type RequestAuth,
  type RequestInit,
  type RequestOptions,
  type Step,
} from "./src/spider/request.ts";
export { type FromHtmlOptions, Page } from "./src/spider/page.ts";
export type { Session } from "./src/spider/session.ts";
export type { Contract, ContractCount, Contracts } from "./src/spider/contracts.ts";
export { inspectPage } from "./src/cli/inspect_page.ts";
export { Selection, type SelectionMode } from "./src/spider/selection.ts";
export type { XPathSelection } from "./src/spider/xpath_selection.ts";
export type { XPathOptions } from "./src/spider/xpath_select.ts";
export { type ProcessLinks, Rule, type RuleOptions } from "./src/spider/rule.ts";
export { LinkExtractor, type LinkExtractorOptions, type Pattern } from "./src/spider/link_extractor.ts";
export type { SitemapPattern } from "./src/spider/sitemap.ts";
export type { CallbackOutput, CallbackResult, Item, Logger } from "./src/spider/types.ts";
export type { Pipeline } from "./src/spider/pipeline.ts";
export type { RequestMiddleware, ResponseMiddleware } from "./src/spider/middleware.ts";
export { type FetchedResponse, makeResponse, type RedirectHop, type Rendered } from "./src/spider/response.ts";
export { Settings, type SettingsInit } from "./src/settings/settings.ts";
export { type SettingKey, type SettingRow, SETTINGS, type SettingValues, TABLE } from "./src/settings/table.ts";
export type { SettingDefinition, SettingType } from "./src/settings/types.ts";
export { checkSettings, resolveCrawlSettings, type SettingsSources } from "./src/settings/check.ts";
export { BUILTIN_PROFILES } from "./src/settings/profiles.ts";
export type { CoverageRule, InvalidItemAction, Monitors } from "./src/settings/monitor_rules.ts";
export {
  type AnsweredResponse,
  BlockedError,
  BrowserMissingError,
  CloudError,
  FetchError,
  HttpStatusError,
  QueueError,
  SettingsError,
  UsageError,
} from "./src/errors.ts";
export { Crawl, type CrawlOptions } from "./src/engine/crawl.ts";
export type { HostState } from "./src/engine/host_state.ts";
export type { SpiderSource } from "./src/engine/worker_pool.ts";
export type { ItemSink } from "./src/engine/items.ts";
export type { Stats, StatsRecord } from "./src/engine/stats.ts";
export type { MonitorFailure, MonitorReport } from "./src/engine/monitors.ts";
export type { Failure } from "./src/spider/callbacks.ts";
export type { ItemSchema } from "./src/engine/item_schema.ts";
export type { Frontier, FrontierStats, FrontierStatus, Lease, LeaseOptions } from "./src/queue/frontier.ts";
export type { CrawlTotals, LiveProcess, ProcessTotals } from "./src/queue/frontier.ts";
export { MemoryFrontier } from "./src/queue/memory.ts";
export { type BadPush, type PushOptions, type PushResult, Queue, type QueueOptions } from "./src/queue/queue.ts";
export type { PushChecks, PushedRequest } from "./src/queue/pushed_request.ts";
export type { EntryLimits } from "./src/queue/codec.ts";
export type { StatusOptions } from "./src/queue/queue.ts";
export { canonicalUrl, fingerprint } from "./src/spider/fingerprint.ts";
export { type RunOptions, runSpider } from "./src/run.ts";

import type { BrowserPage as PuppeteerPage } from "./src/browser/types.ts";
/**
 * The live browser tab a `call` step's method is given: puppeteer's Page (see pptr.dev), for typing such methods.
 *
 * Hidden from the generated docs: the type is puppeteer's, documented by puppeteer, and documenting it here would
 * pull in the whole of puppeteer's API.
 * @ignore
 */
export type BrowserPage = PuppeteerPage;
