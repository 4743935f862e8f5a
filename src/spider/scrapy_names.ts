/**
 * Scrapy's spellings, as people bring them from Python: `start_urls`, a pipeline's `process_item`, a middleware's
 * `process_request`. Netweir names these in camelCase (or differently), so a spider written the Scrapy way would
 * run and do nothing: no start requests, every item dropped, a middleware never called, and exit 0. Each Scrapy name
 * found is refused at start with one line saying Netweir's name for it.
 */

/** A Scrapy spelling and what to write instead. */
type Advice = readonly [scrapy: string, netweir: string];

/** On the spider: properties and methods. */
const SPIDER_NAMES: readonly Advice[] = [
  ["start_urls", "startUrls"],
  ["allowed_domains", "allowedDomains"],
  ["custom_settings", "settings (a Settings or a plain object)"],
  ["start_requests", "start() (an async generator of Requests or URLs)"],
  ["parse_start_url", "parseStartUrl"],
  ["handle_httpstatus_list", "handleHttpStatusList"],
  ["sitemap_urls", "sitemapUrls"],
  ["sitemap_rules", "sitemapRules"],
  ["sitemap_follow", "sitemapFollow"],
  ["sitemap_alternate_links", "sitemapAlternateLinks"],
  ["item_pipelines", "pipelines"],
  ["downloader_middlewares", "middlewares"],
  ["spider_middlewares", "middlewares"],
];

/** On an item pipeline. */
const PIPELINE_NAMES: readonly Advice[] = [
  ["process_item", "process(item, spider)"],
  ["open_spider", "open(spider)"],
  ["close_spider", "close(spider)"],
];

/** On a middleware. */
const MIDDLEWARE_NAMES: readonly Advice[] = [
  ["process_request", "processRequest(request, spider)"],
  ["process_response", "processResponse(response, spider)"],
  ["process_exception", "an errback on the request (errback: this.method)"],
  ["process_spider_output", "processResponse, or the callback itself"],
];

/** Whether an object has `name` itself or on its prototypes, Object's own members aside. */
function has(value: object, name: string): boolean {
  for (let proto: object | null = value; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    if (Object.hasOwn(proto, name)) return true;
  }
  return false;
}

function describe(value: object): string {
  const name = value.constructor?.name;
  return name && name !== "Object" ? name : "";
}

/**
 * The first Scrapy spelling found on the spider, its pipelines or its middlewares, as a sentence naming Netweir's
 * spelling, or undefined when there is none. Also a pipeline without `process` and a middleware with neither method,
 * which would drop every item or never run.
 */
export function scrapySpellingProblem(
  spider: object,
  spiderName: string,
  pipelines: readonly unknown[],
  middlewares: readonly unknown[],
): string | undefined {
  for (const [scrapy, netweir] of SPIDER_NAMES) {
    if (has(spider, scrapy)) return `spider ${spiderName} has ${scrapy}, a Scrapy name; in Netweir it is ${netweir}`;
  }
  for (const [index, pipeline] of pipelines.entries()) {
    const label = `pipeline ${describe(Object(pipeline)) || `pipelines[${index}]`}`;
    if (typeof pipeline !== "object" || pipeline === null) return `${label} of spider ${spiderName} is not an object`;
    for (const [scrapy, netweir] of PIPELINE_NAMES) {
      if (has(pipeline, scrapy)) return `${label} has ${scrapy}, a Scrapy name; in Netweir it is ${netweir}`;
    }
    if (typeof (pipeline as { process?: unknown }).process !== "function") {
      return `${label} has no process(item, spider) method, so it would drop every item`;
    }
  }
  for (const [index, middleware] of middlewares.entries()) {
    const label = `middleware ${describe(Object(middleware)) || `middlewares[${index}]`}`;
    if (typeof middleware !== "object" || middleware === null) {
      return `${label} of spider ${spiderName} is not an object`;
    }
    for (const [scrapy, netweir] of MIDDLEWARE_NAMES) {
      if (has(middleware, scrapy)) return `${label} has ${scrapy}, a Scrapy name; in Netweir it is ${netweir}`;
    }
    const { processRequest, processResponse } = middleware as Record<string, unknown>;
    if (typeof processRequest !== "function" && typeof processResponse !== "function") {
      return `${label} has neither processRequest nor processResponse, so it would never be called`;
    }
  }
  return undefined;
}
