/**
 * `browser_block`'s URL globs, the `pdf` step, and the page kept when a rendered request fails (on the errback's
 * failure and in the cache directory), against Debian's Chromium and the debug site on 127.0.0.1. Each test starts a
 * Chromium of its own (file: about 40 s on a loaded 2-core machine).
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Page, Request, Spider, type Step } from "../../mod.ts";
import { fingerprint } from "../../src/spider/fingerprint.ts";
import { crawl } from "../helpers/crawl_in_process.ts";
import { startDebugSite } from "./fixtures/debug_site.ts";

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Renders one URL with steps; keeps the page, or what the errback got. */
class One extends Spider {
  pages: Page[] = [];
  failures: Array<{ error: Error & { reason?: string }; screenshot?: Uint8Array; html?: string }> = [];
  constructor(readonly url: string, readonly steps: Step[] = []) {
    super();
  }
  override async *start() {
    yield new Request({ url: this.url, render: true, steps: this.steps, errback: this.failed });
  }
  override parse(page: Page) {
    this.pages.push(page);
  }
  failed(failure: { error: Error & { reason?: string }; screenshot?: Uint8Array; html?: string }) {
    this.failures.push(failure);
  }
}

Deno.test("browser_block URL globs refuse the requests they match, beside resource types, and count them", async () => {
  const site = await startDebugSite();
  try {
    const open = new One(site.url + "with-ads");
    await crawl(open, { browserBlock: ["image"] });
    assert.equal(open.pages[0].css("body").attr("data-tracked"), "yes", "without the glob the ad script runs");
    assert.equal(site.hits("/ads/tracker.js"), 1);

    const blocked = new One(site.url + "with-ads");
    const { stats } = await crawl(blocked, { browserBlock: ["image", "*/ads/*"] });
    const page = blocked.pages[0];
    assert.equal(page.css("body").attr("data-tracked"), undefined);
    assert.equal(page.css("#app").text(), "app ran", "the page's own script still ran");
    assert.equal(site.hits("/ads/tracker.js"), 1, "never asked for again");
    assert.equal(site.hits("/static/app.js"), 2);
    assert.equal(stats["browser.blocked_urls"], 1);
    assert.equal(stats["browser.blocked"], 1);
  } finally {
    await site.close();
  }
});

/** The first page's MediaBox of a PDF Chromium printed: [x0, y0, x1, y1] in points. */
function mediaBox(pdf: Uint8Array): number[] {
  const text = new TextDecoder("latin1").decode(pdf);
  const box = /\/MediaBox\s*\[\s*([\d.\s-]+)\]/.exec(text);
  assert.ok(box, "the PDF has a MediaBox");
  return box[1].trim().split(/\s+/).map(Number);
}

Deno.test("a pdf step prints the page with its format and orientation; bad options fail the step", async () => {
  const site = await startDebugSite();
  try {
    const spider = new One(site.url + "report", [
      { pdf: true },
      { pdf: { format: "A5", landscape: true, printBackground: true } },
    ]);
    await crawl(spider);
    const page = spider.pages[0];
    const [portrait, landscape] = page.response.rendered!.pdfs;
    assert.equal(page.pdf, landscape, "page.pdf is the last one");
    assert.equal(new TextDecoder().decode(portrait.subarray(0, 5)), "%PDF-");
    const [, , width4, height4] = mediaBox(portrait);
    assert.ok(Math.abs(width4 - 595) < 2 && Math.abs(height4 - 842) < 2, `A4 portrait, not ${width4}x${height4}`);
    const [, , width5, height5] = mediaBox(landscape);
    assert.ok(Math.abs(width5 - 595) < 2 && Math.abs(height5 - 420) < 2, `A5 landscape, not ${width5}x${height5}`);

    const bad = new One(site.url + "report", [{ pdf: { format: "napkin" } }]);
    await crawl(bad, { retries: 0 });
    assert.equal(bad.failures.length, 1);
    assert.equal(bad.failures[0].error.reason, "browser_step");
    assert.match(
      bad.failures[0].error.message,
      /^step 0 \(pdf\) failed: pdf format must be one of .*a4.*, not "napkin"$/,
    );
  } finally {
    await site.close();
  }
});

Deno.test("a failed render hands the errback a screenshot and the HTML as it failed, and keeps them in the cache", async () => {
  const site = await startDebugSite();
  const cache = await mkdtemp(join(tmpdir(), "netweir-failures-"));
  try {
    const steps: Step[] = [{ wait_for: "#pay", timeout: 0.5 }];
    const spider = new One(site.url + "checkout", steps);
    const { lines } = await crawl(spider, { retries: 0, cache });
    assert.equal(spider.failures.length, 1);
    const failure = spider.failures[0];
    assert.equal(failure.error.reason, "browser_step");
    assert.deepEqual([...failure.screenshot!.subarray(0, 8)], PNG_SIGNATURE);
    // A viewport's PNG: 1280 pixels wide (the IHDR chunk's width, big-endian, at byte 16).
    assert.equal(new DataView(failure.screenshot!.buffer, failure.screenshot!.byteOffset).getUint32(16), 1280);
    assert.match(failure.html!, /<p id="state">stuck at the payment form<\/p>/);

    const stem = join(cache, "failures", fingerprint(new Request({ url: site.url + "checkout" })));
    assert.deepEqual(new Uint8Array(await readFile(`${stem}.png`)), failure.screenshot);
    assert.equal(await readFile(`${stem}.html`, "utf8"), failure.html);
    assert.ok(lines.some((line) => line.includes(`as it failed: ${stem}.png, .html`)), lines.join("\n"));
  } finally {
    await site.close();
    await rm(cache, { recursive: true, force: true });
  }
});

Deno.test("a failure before the page began to load carries no picture of the tab's last page", async () => {
  const site = await startDebugSite();
  try {
    class FailsEarly extends One {
      override beforeRender() {
        throw new Error("not logged in");
      }
    }
    const spider = new FailsEarly(site.url + "checkout");
    await crawl(spider, { retries: 0 });
    assert.equal(spider.failures.length, 1);
    assert.equal(spider.failures[0].error.reason, "browser_hook");
    assert.equal(spider.failures[0].screenshot, undefined);
    assert.equal(spider.failures[0].html, undefined);
  } finally {
    await site.close();
  }
});
