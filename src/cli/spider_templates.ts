/**
 * The spider files `netweir genspider NAME DOMAIN --template T` writes: `basic` (start URLs and a parse callback),
 * `rules` (a CrawlSpider: rules pick the links to follow and the pages to parse), `sitemap` (pages found through
 * sitemap.xml) and `render` (pages rendered in Chromium first). Each runs as written, and says where to go next.
 */

/** The templates by name. */
export const TEMPLATES = ["basic", "rules", "sitemap", "render"] as const;
export type TemplateName = typeof TEMPLATES[number];

/** What a template is filled with. */
export interface TemplateValues {
  /** The spider's name (`netweir crawl --spider NAME`, the queue key). */
  name: string;
  /** Its class name. */
  className: string;
  /** The domain it stays on. */
  domain: string;
  /** Where it starts. */
  startUrl: string;
}

const header = (v: TemplateValues, what: string) =>
  `/**
 * ${v.className}: ${what}
 * Try it: netweir parse ${v.startUrl} --spider-file THIS_FILE, then netweir crawl THIS_FILE -o -
 */
`;

const ITEM = `{ title: page.css("title").text(), url: page.url }`;

function basic(v: TemplateValues): string {
  return `${header(v, `the pages of ${v.domain}.`)}import { type Page, Spider } from "netweir";

export class ${v.className} extends Spider {
  override name = ${JSON.stringify(v.name)};
  override allowedDomains = [${JSON.stringify(v.domain)}];
  override startUrls = [${JSON.stringify(v.startUrl)}];

  override *parse(page: Page) {
    yield ${ITEM};
  }
}
`;
}

function rules(v: TemplateValues): string {
  return `${
    header(v, `follows the links its rules take on ${v.domain} and parses the pages they lead to.`)
  }import { type Page, Rule, Spider } from "netweir";

export class ${v.className} extends Spider {
  override name = ${JSON.stringify(v.name)};
  override allowedDomains = [${JSON.stringify(v.domain)}];
  override startUrls = [${JSON.stringify(v.startUrl)}];
  override rules = [
    // Pages whose URL matches go to parseItem; change the pattern to the site's item pages.
    new Rule({ allow: ["/items?/"], callback: "parseItem" }),
    // Every other link on the site is followed, to find more.
    new Rule({}),
  ];

  parseItem(page: Page) {
    return ${ITEM};
  }
}
`;
}

function sitemap(v: TemplateValues): string {
  const sitemapUrl = new URL("/sitemap.xml", v.startUrl).href;
  return `${header(v, `the pages ${v.domain}'s sitemap lists.`)}import { type Page, Spider } from "netweir";

export class ${v.className} extends Spider {
  override name = ${JSON.stringify(v.name)};
  override allowedDomains = [${JSON.stringify(v.domain)}];
  override sitemapUrls = [${JSON.stringify(sitemapUrl)}];
  // [pattern, callback]: the first pattern a page's URL matches picks its callback ("" matches every page).
  override sitemapRules: Spider["sitemapRules"] = [["", "parse"]];

  override *parse(page: Page) {
    yield ${ITEM};
  }
}
`;
}

function render(v: TemplateValues): string {
  return `${
    header(v, `pages of ${v.domain} rendered in Chromium, for sites that build them with JavaScript.`)
  }import { type Page, Request, Spider } from "netweir";

export class ${v.className} extends Spider {
  override name = ${JSON.stringify(v.name)};
  override allowedDomains = [${JSON.stringify(v.domain)}];

  override async *start() {
    // render: the page is loaded in the browser and its callback sees the DOM after its scripts ran.
    yield new Request({ url: ${JSON.stringify(v.startUrl)}, render: true });
  }

  override *parse(page: Page) {
    yield ${ITEM};
  }
}
`;
}

/** The text of a spider file from template `template`. */
export function spiderFromTemplate(template: TemplateName, values: TemplateValues): string {
  return { basic, rules, sitemap, render }[template](values);
}
