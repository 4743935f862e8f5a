/**
 * The spider of `scripts/bench/render_heavy.ts --docs=DIR`: renders every page of a real documentation site (Debian's
 * rust-doc) as a user would write it, following every link on the site, and keeps each page's title.
 *
 * A bench-only window on the crawl process's own memory: every `sample` pages the item carries the process's
 * `Deno.memoryUsage()` (RSS, V8 heap, external buffers), and with `-a snapshot=PATH` a V8 heap snapshot is written
 * after `snapshotAt` pages, to open in Chrome's DevTools (Memory tab) and see what holds the heap.
 */
import { writeHeapSnapshot } from "node:v8";
import { type Page, Request, Spider } from "../../mod.ts";

export class RustDocs extends Spider {
  site = "";
  sample = "25";
  snapshot = "";
  snapshotAt = "300";
  #parsed = 0;

  override async *start() {
    yield new Request({ url: this.site, render: true });
  }

  override *parse(page: Page) {
    for (const href of page.css("a").attrs("href")) {
      const url = new URL(href, page.url);
      if (url.origin === new URL(this.site).origin && url.pathname.endsWith(".html")) {
        yield page.follow(url.pathname, { render: true });
      }
    }
    const parsed = ++this.#parsed;
    const item: Record<string, unknown> = { url: page.url, title: page.css("title").text() };
    if (parsed % Number(this.sample) === 0) item.memory = { parsed, ...Deno.memoryUsage() };
    if (this.snapshot && parsed === Number(this.snapshotAt)) writeHeapSnapshot(this.snapshot);
    yield item;
  }
}
