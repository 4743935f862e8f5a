/** A `hosts` entry with `render: true`: that host's requests go through Chromium without asking for it themselves. */
import assert from "node:assert/strict";
import { type Page, Request, Spider } from "../../mod.ts";
import { startJsSite } from "../helpers/js_site.ts";
import { crawl } from "../helpers/crawl_in_process.ts";

class Listing extends Spider {
  done: Record<string, string> = {};
  constructor(readonly urls: string[]) {
    super();
  }
  override async *start() {
    for (const url of this.urls) yield new Request({ url });
  }
  override parse(page: Page) {
    // The page's script writes "set" into #done: only a rendered page has it.
    this.done[new URL(page.url).hostname] = page.css("#done").text();
  }
}

Deno.test("a host whose hosts entry says render has its pages rendered; another host's are fetched as they are", async () => {
  const site = await startJsSite();
  try {
    const page = site.url + "cookie-script";
    const spider = new Listing([page, page.replace("127.0.0.1", "localhost")]);
    await crawl(spider, { hosts: { localhost: { render: true } } });
    assert.deepEqual(spider.done, { "127.0.0.1": "", localhost: "set" });
  } finally {
    await site.close();
  }
});
