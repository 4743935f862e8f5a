/**
 * Which links of a page a Rule takes (C5), as Scrapy's LinkExtractor: URL patterns to allow and deny, domains to
 * allow and deny, regions of the page to look in, and file extensions that are never pages.
 */
import type { Page } from "./page.ts";
import { removeSubsets, uniqueSort } from "domutils";
import { resolveLinks, walkLinks } from "./html_links.ts";
import { xpathEngine } from "./xpath_load.ts";
import { domainMatcher } from "./host_in_domain.ts";

/** A URL pattern: a regular expression, or its source as a string. Searched anywhere in the absolute URL. */
export type Pattern = string | RegExp;

/** Which links a LinkExtractor takes; every option narrows, and none means every link of the page. */
export interface LinkExtractorOptions {
  /** Only links matching one of these (any link when none are given). */
  allow?: Pattern | readonly Pattern[];
  /** Never links matching one of these (wins over `allow`). */
  deny?: Pattern | readonly Pattern[];
  /** Only links to these hosts or their subdomains. */
  allowDomains?: string | readonly string[];
  /** Never links to these hosts or their subdomains. */
  denyDomains?: string | readonly string[];
  /** Only links inside elements matching these selectors (the whole page when none). */
  restrictCss?: string | readonly string[];
  /**
   * Only links inside the elements these XPath expressions select (with `restrictCss`, inside either's). Each must
   * select elements, as Scrapy's `restrict_xpaths`: `//div[@id='main']`.
   */
  restrictXpaths?: string | readonly string[];
  /** File extensions that are not pages (Scrapy's list when not given; `[]` to take everything). */
  denyExtensions?: readonly string[];
}

/** Scrapy's IGNORED_EXTENSIONS: archives, images, audio, video, office documents and other non-pages. */
export const DEFAULT_DENY_EXTENSIONS: readonly string[] = [
  ..."7z 7zip bz2 rar tar tar.gz xz zip".split(" "),
  ..."mng pct bmp gif jpg jpeg png pst psp tif tiff ai drw dxf eps ps svg cdr ico webp avif".split(" "),
  ..."mp3 wma ogg wav ra aac mid au aiff".split(" "),
  ..."3gp asf asx avi mov mp4 mpg qt rm swf wmv m4a m4v flv webm".split(" "),
  ..."xls xlsx ppt pptx pps doc docx odt ods odg odp".split(" "),
  ..."css pdf exe bin rss dmg iso apk jar sh rb js hqx".split(" "),
];

/**
 * Scrapy's spellings of the options and Netweir's: a spider in JavaScript, where no type checks the names, would pass
 * `restrict_xpaths` unread and take every link of the page. Refused with one line instead.
 */
export const SCRAPY_EXTRACTOR_OPTIONS: Readonly<Record<string, string>> = {
  restrict_css: "restrictCss",
  restrict_xpaths: "restrictXpaths",
  allow_domains: "allowDomains",
  deny_domains: "denyDomains",
  deny_extensions: "denyExtensions",
};

/** Throws a TypeError naming the first Scrapy spelling among `options`' keys, and Netweir's name for it. */
export function refuseScrapyOptions(options: object, names: Readonly<Record<string, string>>, what: string): void {
  for (const [scrapy, netweir] of Object.entries(names)) {
    if (Object.hasOwn(options, scrapy)) {
      throw new TypeError(`${what} option ${scrapy} is Scrapy's name; in Netweir it is ${netweir}`);
    }
  }
}

function list<T>(value: T | readonly T[] | undefined): readonly T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value as T];
}

/** A pattern as a RegExp safe to `test()` repeatedly (no g/y flags, whose lastIndex would carry state). */
function compilePattern(pattern: Pattern, option: string): RegExp {
  if (pattern instanceof RegExp) {
    return /[gy]/.test(pattern.flags) ? new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, "")) : pattern;
  }
  if (typeof pattern !== "string") throw new TypeError(`${option} must be strings or RegExps`);
  try {
    return new RegExp(pattern);
  } catch (error) {
    throw new TypeError(`${option}: invalid pattern ${JSON.stringify(pattern)}: ${(error as Error).message}`);
  }
}

function normaliseDomain(domain: string, option: string): string {
  if (typeof domain !== "string" || domain.trim() === "") throw new TypeError(`${option} must be host names`);
  return domain.trim().toLowerCase().replace(/^\.+|\.+$/g, "");
}

/** The extension of a URL path's last segment, lower case ("tar.gz" counts as "gz" and as "tar.gz"). */
function hasExtension(pathname: string, extensions: ReadonlySet<string>): boolean {
  const name = pathname.slice(pathname.lastIndexOf("/") + 1).toLowerCase();
  for (let dot = name.indexOf("."); dot !== -1; dot = name.indexOf(".", dot + 1)) {
    if (extensions.has(name.slice(dot + 1))) return true;
  }
  return false;
}

/** Takes the links of a page that pass its patterns, domains, regions and extensions (see LinkExtractorOptions). */
export class LinkExtractor {
  readonly #allow: readonly RegExp[];
  readonly #deny: readonly RegExp[];
  readonly #allowDomains: readonly string[];
  readonly #denyDomains: readonly string[];
  readonly #inAllowed: (host: string) => boolean;
  readonly #inDenied: (host: string) => boolean;
  readonly #denyExtensions: ReadonlySet<string>;
  /** The region selectors, joined into one selector list ("" for the whole page). */
  readonly restrictCss: string;
  /** The region XPath expressions (none for the whole page, when there are no region selectors either). */
  readonly restrictXpaths: readonly string[];

  /** An extractor from its options; a pattern that is no valid RegExp throws a TypeError naming the option. */
  constructor(options: LinkExtractorOptions = {}) {
    refuseScrapyOptions(options, SCRAPY_EXTRACTOR_OPTIONS, "LinkExtractor");
    this.#allow = list(options.allow).map((p) => compilePattern(p, "allow"));
    this.#deny = list(options.deny).map((p) => compilePattern(p, "deny"));
    this.#allowDomains = list(options.allowDomains).map((d) => normaliseDomain(d, "allowDomains"));
    this.#denyDomains = list(options.denyDomains).map((d) => normaliseDomain(d, "denyDomains"));
    this.#inAllowed = domainMatcher(this.#allowDomains);
    this.#inDenied = domainMatcher(this.#denyDomains);
    this.#denyExtensions = new Set(
      (options.denyExtensions ?? DEFAULT_DENY_EXTENSIONS).map((ext) => ext.toLowerCase().replace(/^\./, "")),
    );
    const regions = list(options.restrictCss);
    for (const css of regions) {
      if (typeof css !== "string" || css.trim() === "") throw new TypeError("restrictCss must be CSS selectors");
    }
    this.restrictCss = regions.join(", ");
    const xpaths = list(options.restrictXpaths);
    for (const xpath of xpaths) {
      if (typeof xpath !== "string" || xpath.trim() === "") {
        throw new TypeError("restrictXpaths must be XPath expressions");
      }
    }
    // Parsed now, so that a wrong expression is told when the rule is made, not on the first page (this loads the
    // XPath engine: a spider whose rules use XPath uses it on every page).
    for (const xpath of xpaths) {
      try {
        xpathEngine().parseXPath(xpath);
      } catch (error) {
        throw new TypeError(`restrictXpaths: ${(error as Error).message}`);
      }
    }
    this.restrictXpaths = xpaths;
  }

  /** What tells apart the regions of two extractors: those with equal keys take the same candidates from a page. */
  get regionKey(): string {
    return JSON.stringify([this.restrictCss, this.restrictXpaths]);
  }

  /** Whether an absolute URL passes the patterns, domains and extensions (regions aside). */
  matches(url: string): boolean {
    if (this.#allow.length > 0 && !this.#allow.some((re) => re.test(url))) return false;
    if (this.#deny.some((re) => re.test(url))) return false;
    if (this.#allowDomains.length === 0 && this.#denyDomains.length === 0 && this.#denyExtensions.size === 0) {
      return true;
    }
    const parsed = URL.parse(url);
    if (parsed === null) return false;
    const host = parsed.hostname;
    if (this.#allowDomains.length > 0 && !this.#inAllowed(host)) return false;
    if (this.#inDenied(host)) return false;
    return !(this.#denyExtensions.size > 0 && hasExtension(parsed.pathname, this.#denyExtensions));
  }

  /** The links to consider on a page before filtering: all of them, or those inside the regions. */
  candidates(page: Page): string[] {
    if (this.restrictCss === "" && this.restrictXpaths.length === 0) return page.links();
    if (this.restrictXpaths.length === 0) return regionLinks(page, this.restrictCss);
    return regionsLinks(page, this.restrictCss, this.restrictXpaths);
  }

  /** The page's links this extractor takes, absolute, in document order, without duplicates. */
  extract(page: Page): string[] {
    return this.candidates(page).filter((url) => this.matches(url));
  }
}

/** The links inside (or being) the elements matching `css`, resolved against the page's base. */
export function regionLinks(page: Page, css: string): string[] {
  return resolveLinks(walkLinks(page.css(css).elements).hrefs, page.baseUrl, page.encoding);
}

/**
 * The links inside (or being) the elements matching `css` (when not "") or selected by one of `xpaths`, in document
 * order, each region once: a region inside another is read as part of it.
 */
function regionsLinks(page: Page, css: string, xpaths: readonly string[]): string[] {
  const regions = css === "" ? [] : [...page.css(css).elements];
  for (const xpath of xpaths) regions.push(...page.xpath(xpath).elements);
  const elements = uniqueSort(removeSubsets(regions)) as typeof regions;
  return resolveLinks(walkLinks(elements).hrefs, page.baseUrl, page.encoding);
}
