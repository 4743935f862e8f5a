/**
 * `browser_init_script` and the spider's `beforeRender` / `afterRender` hooks, against Debian's Chromium and the debug
 * site on 127.0.0.1. Each test starts a Chromium of its own (file: 4 min 13 s on the 2-core machine at load average 45).
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserPage, type Page, Request, Spider } from "../../mod.ts";
import { renderInTab } from "../../src/browser/render.ts";
import { crawl } from "../helpers/crawl_in_process.ts";
import { openTestPool } from "../helpers/tab_pool.ts";
import { renderDeps } from "../helpers/render_deps.ts";
import { startDebugSite } from "./fixtures/debug_site.ts";
import { runCli } from "../cli/_run.ts";

/** Renders each URL once; keeps the pages and the failures. */
class Renders extends Spider {
  pages: Page[] = [];
  failures: Array<{ reason: string; message: string }> = [];
  constructor(readonly urls: string[]) {
    super();
  }
  override async *start() {
    for (const url of this.urls) yield new Request({ url, render: true, errback: this.failed });
  }
  override parse(page: Page) {
    this.pages.push(page);
  }
  failed(failure: { error: Error & { reason?: string } }) {
    this.failures.push({ reason: failure.error.reason ?? "", message: failure.error.message });
  }
}

const seen = (page: Page) => page.css("#seen").text();

Deno.test("browser_init_script runs before the page's own first script, given as source or as a .js file", async () => {
  const site = await startDebugSite();
  const dir = await mkdtemp(join(tmpdir(), "netweir-init-"));
  try {
    const plain = new Renders([site.url + "reads-init"]);
    await crawl(plain);
    assert.equal(seen(plain.pages[0]), "nothing", "without the setting the page finds nothing");

    const inline = new Renders([site.url + "reads-init"]);
    await crawl(inline, { browserInitScript: "window.__fromInit = 'set by the init script';" });
    assert.equal(seen(inline.pages[0]), "set by the init script");

    const file = join(dir, "stealth.js");
    await writeFile(file, "window.__fromInit = 'from ' + 'the file';\n");
    const fromFile = new Renders([site.url + "reads-init"]);
    await crawl(fromFile, { browserInitScript: file });
    assert.equal(seen(fromFile.pages[0]), "from the file");
  } finally {
    await site.close();
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("the init script is taken off the tab when its page is done: the tab's next page runs without it", async () => {
  const site = await startDebugSite();
  const pool = openTestPool(1);
  const signal = new AbortController().signal;
  try {
    const render = async (initScript: string | undefined) => {
      const tab = await pool.acquire(undefined, signal);
      try {
        const request = new Request({ url: site.url + "reads-init", render: true });
        const response = await renderInTab(tab, request, renderDeps({ initScript }), 20, signal);
        return { tab, text: new TextDecoder().decode(response.body) };
      } finally {
        await pool.release(tab, true);
      }
    };
    const first = await render("window.__fromInit = 'first page only';");
    assert.match(first.text, /first page only/);
    const second = await render(undefined);
    assert.equal(second.tab, first.tab, "the same tab, reused");
    assert.match(second.text, /<p id="seen">nothing<\/p>/);
  } finally {
    await pool.close();
    await site.close();
  }
});

Deno.test("beforeRender runs before the page loads and afterRender before its HTML is taken, both on the live page", async () => {
  const site = await startDebugSite();
  try {
    const calls: string[] = [];
    class Hooked extends Renders {
      override async beforeRender(tab: BrowserPage, request: Request) {
        calls.push(`before ${request.url} ${tab.url()}`);
        await tab.evaluateOnNewDocument("window.__fromInit = 'set in beforeRender'");
      }
      override async afterRender(tab: BrowserPage, request: Request) {
        calls.push(`after ${request.url} ${tab.url()}`);
        await tab.evaluate("document.body.dataset.after = document.getElementById('seen').textContent");
      }
    }
    const spider = new Hooked([site.url + "reads-init"]);
    await crawl(spider);
    assert.deepEqual(spider.failures, []);
    const page = spider.pages[0];
    assert.equal(seen(page), "set in beforeRender");
    assert.equal(page.css("body").attr("data-after"), "set in beforeRender");
    const url = site.url + "reads-init";
    assert.equal(calls.length, 2);
    assert.match(calls[0], new RegExp(`^before ${url} `));
    assert.equal(calls[1], `after ${url} ${url}`);
  } finally {
    await site.close();
  }
});

Deno.test("a hook that throws fails its request (browser_hook) at once, to the errback, without retries", async () => {
  const site = await startDebugSite();
  try {
    class Throws extends Renders {
      override beforeRender(_tab: BrowserPage, request: Request) {
        if (request.url.endsWith("/checkout")) throw new TypeError("no session for the checkout");
      }
      override async afterRender(tab: BrowserPage, request: Request) {
        if (request.url.endsWith("/report")) await tab.evaluate("window.missing.call()");
      }
    }
    const spider = new Throws([site.url + "checkout", site.url + "report", site.url + "reads-init"]);
    const { stats } = await crawl(spider, { retries: 2, concurrency: 1 });
    const messages = spider.failures.map((failure) => `${failure.reason}: ${failure.message}`).sort();
    assert.equal(messages.length, 2, messages.join("\n"));
    assert.equal(
      messages[0],
      "browser_hook: afterRender threw TypeError: Cannot read properties of undefined (reading 'call')",
    );
    assert.equal(messages[1], "browser_hook: beforeRender threw TypeError: no session for the checkout");
    assert.equal(site.hits("/checkout"), 0, "beforeRender failed before the page was asked for");
    assert.equal(site.hits("/report"), 1, "not retried");
    assert.equal(stats.retries ?? 0, 0);
    assert.equal(spider.pages.length, 1, "the page with no failing hook went on");
  } finally {
    await site.close();
  }
});

Deno.test("with workers, the hooks run on the main thread and the callback in a worker", async () => {
  const site = await startDebugSite();
  const dir = await mkdtemp(join(tmpdir(), "netweir-hooks-workers-"));
  try {
    const mod = JSON.stringify(new URL("../../mod.ts", import.meta.url).href);
    await writeFile(
      join(dir, "hooked.ts"),
      `import { type BrowserPage, type Page, Request, Spider } from ${mod};
const where = () => typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope === "undefined" ? "main" : "worker";
export class Hooked extends Spider {
  site = "";
  override async *start() {
    yield new Request({ url: this.site + "reads-init", render: true });
  }
  override async beforeRender(tab: BrowserPage) {
    await tab.evaluateOnNewDocument("window.__fromInit = " + JSON.stringify("before on " + where()));
  }
  override async afterRender(tab: BrowserPage) {
    await tab.evaluate("document.body.dataset.after = " + JSON.stringify("after on " + where()));
  }
  override parse(page: Page) {
    return { seen: page.css("#seen").text(), after: page.css("body").attr("data-after"), parse: where() };
  }
}
`,
    );
    const out = join(dir, "items.jsonl");
    const args = ["crawl", join(dir, "hooked.ts"), "-a", `site=${site.url}`, "-O", out, "-s", "workers=1"];
    const result = await runCli(args);
    assert.equal(result.code, 0, result.stderr);
    const items = (await readFile(out, "utf8")).trim().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(items, [{ seen: "before on main", after: "after on main", parse: "worker" }]);
  } finally {
    await site.close();
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("a tab a hook had is closed after its page, unless the spider keeps tabs after hooks", async () => {
  const site = await startDebugSite();
  try {
    class Counts extends Renders {
      tabs = new Set<BrowserPage>();
      override beforeRender(tab: BrowserPage) {
        this.tabs.add(tab);
      }
    }
    const urls = [site.url + "reads-init", site.url + "report", site.url + "checkout"];
    const oneTab = { browserTabs: 1, concurrency: 1 };
    const closing = new Counts(urls);
    await crawl(closing, oneTab);
    assert.equal(closing.pages.length, 3);
    assert.equal(closing.tabs.size, 3, "a fresh tab for each page");
    const keeping = new Counts(urls);
    keeping.keepTabsAfterHooks = true;
    await crawl(keeping, oneTab);
    assert.equal(keeping.pages.length, 3);
    assert.equal(keeping.tabs.size, 1, "one tab, reused");
  } finally {
    await site.close();
  }
});
