import assert from "node:assert/strict";
import { type Page, Request, Rule, Spider } from "../../mod.ts";
import { crawlItems } from "./_crawl.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";

class Start extends Spider {
  constructor(readonly urls: string[]) {
    super();
  }
  override async *start() {
    for (const url of this.urls) yield new Request({ url });
  }
}

Deno.test("links() and css() agree on links inside <template> and SVG elements, and css finds clipPath by its name", async () => {
  const site = await startFixtureSite();
  try {
    class Markup extends Start {
      override parse(page: Page) {
        const viaCss = page.css("a").attrs("href").map((href) => new URL(href, page.url).href);
        return {
          links: page.links(),
          viaCss,
          clipPaths: page.css("clipPath").length,
          lower: page.css("clippath a").length,
        };
      }
    }
    const { items: [item] } = await crawlItems(new Markup([`${site.url}markup`]));
    const expected = [`${site.url}links/plain.html`, `${site.url}links/in-clip.html`];
    assert.deepEqual(item.links, expected);
    assert.deepEqual(item.viaCss, expected);
    assert.equal(item.clipPaths, 1);
    assert.equal(item.lower, 1);
  } finally {
    await site.close();
  }
});

Deno.test("rules follow the links of HTML pages, not of text/plain ones", async () => {
  const site = await startFixtureSite();
  try {
    class Rules extends Start {
      override rules = [new Rule({ allow: "from-text" })];
    }
    await crawlItems(new Rules([`${site.url}plain-links`]));
    assert.equal(site.hits("/links/from-text.html"), 0);
    await crawlItems(new Rules([`${site.url}plain-links?type=html`]));
    assert.equal(site.hits("/links/from-text.html"), 1);
  } finally {
    await site.close();
  }
});

Deno.test("a URL written with %7E and with ~ is fetched once", async () => {
  const site = await startFixtureSite();
  try {
    class Tilde extends Start {
      override parse(page: Page) {
        return { url: page.url };
      }
    }
    const { items } = await crawlItems(new Tilde([`${site.url}links/~a.html?q=%7E`, `${site.url}links/%7Ea.html?q=~`]));
    assert.equal(items.length, 1);
    const tilde = site.requests.filter((request) => /^\/links\/(~|%7E)a\.html/.test(request.path));
    assert.equal(tilde.length, 1);
  } finally {
    await site.close();
  }
});
