import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserPage, type Page, Request, Spider, type Step } from "../../mod.ts";
import { startJsSite } from "../helpers/js_site.ts";
import { crawl } from "../helpers/crawl_in_process.ts";

/** A spider that renders one URL with the given steps and keeps the page it got. */
class OnePage extends Spider {
  pages: Page[] = [];
  called: string[] = [];
  constructor(readonly target: string, readonly steps: Step[], readonly extra: Partial<Request> = {}) {
    super();
  }
  override async *start() {
    yield new Request({ url: this.target, render: true, steps: this.steps });
  }
  override parse(page: Page) {
    this.pages.push(page);
    return { url: page.url, status: page.status };
  }
  async fillTheForm(page: BrowserPage, args: Record<string, unknown>) {
    this.called.push(page.url());
    await page.type("#q", String(args.text));
  }
}

Deno.test("scroll until no new content loads every row of an infinite scroll", async () => {
  const site = await startJsSite();
  try {
    const once = new OnePage(site.url + "scroll", [{ wait_for: ".row" }]);
    await crawl(once);
    assert.equal(once.pages[0].css(".row").length, 15, "before scrolling, one batch");
    const spider = new OnePage(site.url + "scroll", [{ wait_for: ".row" }, {
      scroll: { until: "no_new_content", wait: 1 },
    }]);
    await crawl(spider);
    assert.equal(spider.pages[0].css(".row").length, 45);
  } finally {
    await site.close();
  }
});

Deno.test("fill, select and a click that submits a form: the callback gets the page the form led to", async () => {
  const site = await startJsSite();
  try {
    const spider = new OnePage(site.url + "form", [
      { fill: { selector: "#q", value: "blue shoes" } },
      { action: "select", selector: "#color", value: "green" },
      { click: "#go" },
    ]);
    const { items } = await crawl(spider);
    const page = spider.pages[0];
    assert.equal(page.url, site.url + "search");
    assert.equal(page.css("#q").text(), "blue shoes");
    assert.equal(page.css("#color").text(), "green");
    assert.deepEqual(items, [{ url: site.url + "search", status: 200 }]);
  } finally {
    await site.close();
  }
});

Deno.test("a click whose form submission begins late still gets the page the form led to", async () => {
  const site = await startJsSite();
  try {
    const spider = new OnePage(site.url + "form-slow-leave", [
      { fill: { selector: "#q", value: "late" } },
      { click: "#go" },
    ]);
    const { items } = await crawl(spider);
    assert.equal(spider.pages[0].url, site.url + "search");
    assert.equal(spider.pages[0].css("#q").text(), "late");
    assert.deepEqual(items, [{ url: site.url + "search", status: 200 }]);
  } finally {
    await site.close();
  }
});

Deno.test("evaluate results reach the callback as JSON, and a screenshot is a PNG", async () => {
  const site = await startJsSite();
  try {
    const spider = new OnePage(site.url + "data", [
      { evaluate: "window.shopData" },
      { evaluate: { script: "(a, b) => a + b", args: [2, 3] } },
      { evaluate: "async () => document.title" },
      { screenshot: { full_page: true } },
    ]);
    await crawl(spider);
    const page = spider.pages[0];
    assert.deepEqual(page.evaluated, [{ skus: ["a", "b"] }, 5, "JS shop"]);
    const png = page.screenshot!;
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.ok(png.byteLength > 1000);
    assert.equal(page.rendered, true);
  } finally {
    await site.close();
  }
});

Deno.test("a call step hands the spider's method the live page and its args", async () => {
  const site = await startJsSite();
  try {
    const spider = new OnePage(site.url + "form", [
      { call: { method: "fillTheForm", args: { text: "typed by call" } } },
      { click: "#go" },
    ]);
    await crawl(spider);
    assert.deepEqual(spider.called, [site.url + "form"]);
    assert.equal(spider.pages[0].css("#q").text(), "typed by call");
  } finally {
    await site.close();
  }
});

Deno.test("set_input_files uploads a file from inside browser_upload_dir; without the setting it is dropped", async () => {
  const site = await startJsSite();
  const dir = await mkdtemp(join(tmpdir(), "netweir-uploads-"));
  try {
    await writeFile(join(dir, "report.txt"), "quarterly numbers\n");
    const steps = [{ set_input_files: { selector: "#file", files: "report.txt" } }, { click: "#send" }];
    const spider = new OnePage(site.url + "upload", steps);
    await crawl(spider, { browserUploadDir: dir });
    assert.deepEqual(site.uploads, [{ field: "document", name: "report.txt", text: "quarterly numbers\n" }]);
    assert.equal(spider.pages[0].css("#received").text(), "report.txt");

    const refused = new OnePage(site.url + "upload", steps);
    const { stats, lines } = await crawl(refused);
    assert.deepEqual(stats.dropped, { upload: 1 });
    assert.equal(refused.pages.length, 0);
    assert.equal(site.uploads.length, 1, "nothing more was uploaded");
    assert.ok(lines.some((line) => /set_input_files needs browser_upload_dir/.test(line)), lines.join("\n"));
  } finally {
    await site.close();
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("a step that times out fails the request with its index and action, through retries to the errback", async () => {
  const site = await startJsSite();
  try {
    const failures: string[] = [];
    class Waits extends Spider {
      override async *start() {
        yield new Request({
          url: site.url + "never",
          steps: [{ wait_for: "p" }, { click: "#button-that-never-comes", timeout: 0.3 }],
          errback: this.failed,
        });
      }
      override parse() {}
      failed(failure: { error: Error }) {
        failures.push(failure.error.message);
      }
    }
    const { stats } = await crawl(new Waits(), { retries: 1 });
    assert.equal(failures.length, 1);
    assert.match(
      failures[0],
      /^step 1 \(click "#button-that-never-comes"\) timed out after 0\.3 s: no element matches #button-that-never-comes$/,
    );
    assert.equal(stats.retries, 1);
    assert.equal(site.hits("/never"), 2, "tried twice");
    assert.equal(stats.errors, 1);
  } finally {
    await site.close();
  }
});
