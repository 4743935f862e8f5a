/**
 * The Spider base class. A spider says where to start (`startUrls` or `start()`), what to do with each page
 * (`parse` and other methods used as callbacks), and how to crawl (`settings`, `rules`, `allowedDomains`).
 */
import { Settings, type SettingsInit } from "../settings/settings.ts";
import { createLogger } from "../log.ts";
import { type CallbackRef, Request } from "./request.ts";
import { type SitemapPattern, sitemapRequests } from "./sitemap.ts";
import type { Page } from "./page.ts";
import type { Rule } from "./rule.ts";
import type { CallbackResult, Item, Logger } from "./types.ts";
import type { RequestMiddleware, ResponseMiddleware } from "./middleware.ts";
import type { Pipeline } from "./pipeline.ts";
import type { BrowserPage } from "./browser_page.ts";

/** Marks Spider classes across copies of Netweir, so a spider built on another copy is recognised and refused. */
const SPIDER_BRAND = Symbol.for("netweir.Spider");

/**
 * What every spider extends. A spider says where to start (`startUrls`, `sitemapUrls` or `start()`), what to do
 * with each page (`parse` and the other methods its requests name as callbacks), and how to crawl (`settings`,
 * `rules`, `allowedDomains`). A callback returns or yields items (plain objects) and further requests.
 *
 * @example A spider's callback, tried on a page built from HTML (no network)
 * ```ts
 * import { makeResponse, Page, Request, Spider } from "netweir";
 * import assert from "node:assert/strict";
 *
 * class Books extends Spider {
 *   override startUrls = ["https://books.example/"];
 *   override *parse(page: Page) {
 *     for (const book of page.css("article")) {
 *       yield { title: book.css("h3").text(), price: book.css(".price").text() };
 *     }
 *     const next = page.css("a.next").attr("href");
 *     if (next) yield page.follow(next);
 *   }
 * }
 *
 * const html = `<article><h3>Dune</h3><p class="price">9.50</p></article>
 *   <article><h3>Emma</h3><p class="price">4.20</p></article><a class="next" href="/?page=2">next</a>`;
 * const request = new Request("https://books.example/");
 * const page = new Page(makeResponse(request, { body: html, headers: { "content-type": "text/html" } }));
 * const out = [...new Books().parse(page)];
 * assert.deepEqual(out.slice(0, 2), [{ title: "Dune", price: "9.50" }, { title: "Emma", price: "4.20" }]);
 * assert.equal((out[2] as Request).url, "https://books.example/?page=2");
 * ```
 */
export abstract class Spider {
  /** Marks the class as a Netweir spider, across copies of Netweir (see `Symbol.for("netweir.Spider")`). */
  static readonly [SPIDER_BRAND] = true;

  /** The spider's name; its class name when not set. Names its keys in a shared queue and its jobs. */
  name?: string;
  /** URLs requested first, at depth 0, handed to `parse`. */
  startUrls: string[] = [];
  /** Hosts the crawl may go to (subdomains included); empty means anywhere. */
  allowedDomains: string[] = [];
  /** The spider's own settings, under `-s` and over a profile. */
  settings: Settings = new Settings();
  /** Named bundles of settings of the spider's own, chosen with the `profile` setting. */
  profiles: Record<string, SettingsInit> = {};
  /** Link-following rules, as Scrapy's CrawlSpider. */
  rules: Rule[] = [];
  /** Item pipelines, in order. */
  pipelines: Pipeline[] = [];
  /** Request and response middlewares, in order. */
  middlewares: Array<RequestMiddleware | ResponseMiddleware> = [];
  /** Logs for the spider's own lines; set by the crawl that runs it. */
  log: Logger = createLogger();
  /** Sitemaps to start from: URLs of sitemaps, sitemap indexes, or robots.txt files (their `Sitemap:` lines). */
  sitemapUrls: string[] = [];
  /**
   * Which callback gets each URL a sitemap lists: that of the first pattern (a RegExp, or a string read as one)
   * found in the URL. A URL no pattern matches is left out. By default every URL goes to `parse`.
   */
  sitemapRules: Array<[SitemapPattern, CallbackRef]> = [["", "parse"]];
  /** Which sitemaps of a sitemap index to follow: those a pattern is found in (by default all). */
  sitemapFollow: SitemapPattern[] = [""];
  /** Whether the alternate-language URLs a sitemap lists (`xhtml:link rel="alternate"`) are crawled too. */
  sitemapAlternateLinks = false;

  /**
   * Whether a tab the render hooks (`beforeRender`, `afterRender`) had is reused for the next page. By default it is
   * closed, since a hook may change the tab in ways nothing can undo (an init script, request interception, the
   * viewport); but a new tab for every page costs (a crawl of 315 rendered pages ran three times slower on a loaded
   * 2-core machine). Set it to true when your hooks change nothing that outlives the page, or set back what they change.
   */
  keepTabsAfterHooks = false;

  /** The start requests: `startUrls`, then `sitemapUrls`. Override to build them yourself (Scrapy's start_requests). */
  async *start(): AsyncGenerator<Request> {
    for (const url of this.startUrls) yield new Request({ url });
    for (const url of this.sitemapUrls) yield new Request({ url, callback: "_sitemap" });
  }

  /**
   * The callback of sitemap requests: a robots.txt's sitemaps, an index's sitemaps, a sitemap's URLs by
   * `sitemapRules` (see src/spider/sitemap.ts). A page that is no sitemap is logged and skipped.
   */
  _sitemap(page: Page): CallbackResult {
    try {
      return sitemapRequests(page, {
        rules: this.sitemapRules,
        follow: this.sitemapFollow,
        alternateLinks: this.sitemapAlternateLinks,
      });
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
      this.log.warning(`skipped: ${error.message}`);
      return [];
    }
  }

  /** The default callback. Without rules, a spider must override it. */
  parse(_page: Page): CallbackResult {
    throw new Error(`${spiderName(this)} has no parse method`);
  }

  /** Called once when the crawl ends, with its finish reason. */
  closed(_reason: string): void | Promise<void> {}

  /**
   * Called for each rendered request once its tab is ready and before the page loads, with puppeteer's live page
   * (`BrowserPage`) and the request. Runs on the main thread, within the request's timeout; what it throws fails the
   * request (errback reason `browser_hook`). Override it to set a viewport, headers or an init script for the page.
   *
   * Hidden from the generated docs, as `BrowserPage` is: its type is puppeteer's (docs/spiders.md shows the hooks).
   * @ignore
   */
  beforeRender(_page: BrowserPage, _request: Request): void | Promise<void> {}

  /**
   * Called for each rendered request after its steps, once the page has loaded and before its HTML is taken for the
   * callback, with puppeteer's live page and the request. Runs like `beforeRender`.
   * @ignore
   */
  afterRender(_page: BrowserPage, _request: Request): void | Promise<void> {}
}

/** A spider's name: its `name`, else its class name. */
export function spiderName(spider: Spider): string {
  return spider.name ?? spider.constructor.name;
}

/** A spider class that can be instantiated. */
export type SpiderClass = new () => Spider;

/**
 * Whether a value is a Spider subclass of another copy of Netweir (a spider file importing "netweir" from a
 * different installation than the running command). Its requests would not be this copy's, so it cannot run.
 */
export function isForeignSpiderClass(value: unknown): boolean {
  return typeof value === "function" && (value as unknown as Record<symbol, unknown>)[SPIDER_BRAND] === true &&
    !isSpiderClass(value) && value.prototype !== undefined;
}

/** Whether a value is a Spider subclass (a class, not an instance). */
export function isSpiderClass(value: unknown): value is SpiderClass {
  return typeof value === "function" && value.prototype instanceof Spider;
}

export type { Item };
