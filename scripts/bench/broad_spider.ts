/**
 * The broad crawl of scripts/bench/broad.ts as a Scrapy tutorial would write it: an item from every page, every
 * link followed (the duplicate filter and robots.txt drop what they should). The seeds are a file of URLs, one a
 * line.
 *
 *   deno run -A cli.ts crawl scripts/bench/broad_spider.ts -a seeds=SEEDS_FILE -o items.jsonl
 */
import { readFile } from "node:fs/promises";
import { type Page, Request, Spider } from "../../mod.ts";

export class Broad extends Spider {
  seeds = "";

  override async *start() {
    for (const url of (await readFile(this.seeds, "utf8")).split("\n")) {
      if (url !== "") yield new Request({ url });
    }
  }

  override *parse(page: Page) {
    // The latency is for the benchmark's figures: how long the response took, as the crawler saw it.
    yield { title: page.css("title").text(), url: page.url, latency: page.response.latency };
    for (const href of page.css("a").attrs("href")) yield page.follow(href);
  }
}
