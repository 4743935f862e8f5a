/**
 * The spider of scripts/bench/render_heavy.ts: renders every page of the heavy documentation site, follows its links,
 * and keeps the title and how many sidebar links the page's script built.
 */
import { type Page, Request, Spider } from "../../mod.ts";

export class HeavyDocs extends Spider {
  site = "";

  override async *start() {
    yield new Request({ url: this.site, render: true });
  }

  override *parse(page: Page) {
    for (const href of page.css("a.next").attrs("href")) yield page.follow(href, { render: true });
    yield { title: page.css("h1").text(), sidebar: page.css("#sidebar a").length };
  }
}
