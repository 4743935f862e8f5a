/**
 * Rules (C5), as Scrapy's CrawlSpider: each rule says which links to take (a LinkExtractor), what to call on the
 * pages they lead to, and whether to keep following links from those pages. Requests made by a rule carry the
 * rule's index, not a callback, so they travel through a shared queue as plain data.
 */
import type { CallbackRef, RenderOption, Request, Step } from "./request.ts";
import type { Page } from "./page.ts";
import type { Spider } from "./spider.ts";
import {
  LinkExtractor,
  type LinkExtractorOptions,
  refuseScrapyOptions,
  SCRAPY_EXTRACTOR_OPTIONS,
} from "./link_extractor.ts";

/** Scrapy's spellings of a rule's options, with Netweir's (see SCRAPY_EXTRACTOR_OPTIONS). */
const SCRAPY_RULE_OPTIONS = { ...SCRAPY_EXTRACTOR_OPTIONS, process_links: "processLinks", cb_kwargs: "cbKwargs" };

/** Changes the links a rule took from a page before they are requested; a spider method name or a function. */
// deno-lint-ignore no-explicit-any
export type ProcessLinks = string | ((this: any, links: string[], page: Page) => string[]);

/** What a Rule takes: which links (the LinkExtractor's options) and what to do with the pages they lead to. */
export interface RuleOptions extends LinkExtractorOptions {
  /** What to call on the pages the rule's links lead to (a spider method or its name). */
  callback?: CallbackRef;
  /** Whether to apply the rules again on those pages; true when there is no callback, false when there is. */
  follow?: boolean;
  /** Called with the links the rule took from a page; returns those to request. */
  processLinks?: ProcessLinks;
  /** Passed to the callback as its second argument (must be JSON). */
  cbKwargs?: Record<string, unknown>;
  /** Render the pages this rule's links lead to in the browser (C23); `"auto"` renders them only if they need it. */
  render?: RenderOption;
  /** Browser steps to run on those pages before the callback sees them; steps imply `render`. */
  steps?: Step[];
}

/**
 * A link-following rule, as Scrapy's CrawlSpider has them: on every page the crawl follows, each rule takes the
 * links its LinkExtractor matches; the pages they lead to go to the rule's callback, and their links are followed
 * again when `follow` is true.
 *
 * @example Which links a rule takes from a page
 * ```ts
 * import { makeResponse, Page, Request, Rule } from "netweir";
 * import assert from "node:assert/strict";
 *
 * const rule = new Rule({ allow: ["/catalogue/"], deny: ["/catalogue/category/"], callback: "parseBook" });
 * assert.equal(rule.follow, false); // a rule with a callback does not follow further by default
 *
 * const html = `<a href="/catalogue/dune">Dune</a> <a href="/catalogue/category/sf">SF</a> <a href="/about">About</a>`;
 * const page = new Page(makeResponse(new Request("https://books.example/"), { body: html }));
 * assert.deepEqual(rule.linkExtractor.extract(page), ["https://books.example/catalogue/dune"]);
 * ```
 */
export class Rule {
  /** Which links the rule takes from a page. */
  readonly linkExtractor: LinkExtractor;
  /** What gets the pages the rule's links lead to; undefined means none (the pages are only followed). */
  readonly callback: CallbackRef | undefined;
  /** Whether the rules are applied again on those pages. */
  readonly follow: boolean;
  /** Changes the links the rule took before they are requested. */
  readonly processLinks: ProcessLinks | undefined;
  /** Passed to the callback as its second argument. */
  readonly cbKwargs: Record<string, unknown>;
  /** Whether those pages are rendered in the browser (`"auto"`: as the crawl finds they need). */
  readonly render: RenderOption;
  /** Browser steps run on those pages before the callback sees them. */
  readonly steps: Step[] | undefined;

  /** A rule from its options; a wrong type in them throws a TypeError naming the option. */
  constructor(options: RuleOptions = {}) {
    refuseScrapyOptions(options, SCRAPY_RULE_OPTIONS, "Rule");
    this.linkExtractor = new LinkExtractor(options);
    const { callback, follow, processLinks, cbKwargs, render, steps } = options;
    if (render !== undefined && typeof render !== "boolean" && render !== "auto") {
      throw new TypeError('Rule render must be true, false or "auto"');
    }
    if (steps !== undefined && !Array.isArray(steps)) throw new TypeError("Rule steps must be an array of steps");
    if (callback !== undefined && typeof callback !== "string" && typeof callback !== "function") {
      throw new TypeError("Rule callback must be a spider method or its name");
    }
    if (follow !== undefined && typeof follow !== "boolean") throw new TypeError("Rule follow must be a boolean");
    if (processLinks !== undefined && typeof processLinks !== "string" && typeof processLinks !== "function") {
      throw new TypeError("Rule processLinks must be a function or a spider method name");
    }
    this.callback = callback;
    this.follow = follow ?? callback === undefined;
    this.processLinks = processLinks;
    this.cbKwargs = { ...cbKwargs };
    this.render = render ?? false;
    this.steps = steps;
  }
}

function applyProcessLinks(spider: Spider, rule: Rule, links: string[], page: Page): string[] {
  const process = rule.processLinks;
  if (process === undefined) return links;
  const fn = typeof process === "string" ? (spider as unknown as Record<string, unknown>)[process] : process;
  if (typeof fn !== "function") throw new TypeError(`Rule processLinks ${process} is not a method of the spider`);
  const result = fn.call(spider, links, page);
  if (!Array.isArray(result) || result.some((link) => typeof link !== "string")) {
    throw new TypeError("Rule processLinks must return an array of URL strings");
  }
  return result;
}

/**
 * Whether a page is HTML, whose links rules follow: its Content-Type says HTML or XHTML, or it says nothing. A text
 * file, a JSON document or an image has no links, only text that looks like markup (a `.txt` of HTML source, an API's
 * escaped snippets), as Scrapy's CrawlSpider follows links of HTML responses alone.
 */
function isHtml(page: Page): boolean {
  const type = page.headers.get("content-type")?.split(";")[0].trim().toLowerCase();
  return type === undefined || type === "" || type === "text/html" || type === "application/xhtml+xml";
}

/**
 * The requests the spider's rules make from a page, as CrawlSpider does: the page's links are extracted once
 * (once per distinct `restrictCss` and `restrictXpaths`), each goes to the first rule that takes it, and each request carries that
 * rule's index (its callback applies when the page comes back). No URL is requested twice from one page.
 */
export function ruleRequests(spider: Spider, page: Page): Request[] {
  if (!isHtml(page)) return [];
  const candidates = new Map<string, string[]>();
  const seen = new Set<string>();
  const requested = new Set<string>();
  const requests: Request[] = [];
  spider.rules.forEach((rule, index) => {
    const extractor = rule.linkExtractor;
    let links = candidates.get(extractor.regionKey);
    if (links === undefined) candidates.set(extractor.regionKey, links = extractor.candidates(page));
    const taken = links.filter((url) => !seen.has(url) && extractor.matches(url));
    for (const url of taken) seen.add(url);
    const toRequest = applyProcessLinks(spider, rule, taken, page);
    for (
      const request of page.followAll(toRequest, {
        rule: index,
        cbKwargs: rule.cbKwargs,
        render: rule.render,
        steps: rule.steps,
      })
    ) {
      // processLinks may return links another rule already took; one request per URL per page.
      if (requested.has(request.url)) continue;
      requested.add(request.url);
      requests.push(request);
    }
  });
  return requests;
}
