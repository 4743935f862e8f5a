/**
 * The job page and the list on `/`, in real headless Chromium: what a person opening them sees, screenshot included
 * (kept in $NETWEIR_SCREENSHOTS when set). The app is served on a real socket; the jobs are FakeJobs with real log,
 * items and stats files.
 */
import assert from "node:assert/strict";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { bodyText, screenshot, watchedPage, withChromium, withServedApp } from "./_chromium.ts";
import { record, withApp, writeAt } from "./_setup.ts";

const SHOTS = Deno.env.get("NETWEIR_SCREENSHOTS");

/** Asserts a screenshot was taken: a PNG, and not an empty page's few bytes. */
async function assertScreenshot(path: string): Promise<void> {
  const bytes = await readFile(path);
  assert.deepEqual([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47], "a PNG");
  assert.ok((await stat(path)).size > 10_000, `${path} shows something`);
}

Deno.test("the job page shows a running job's stats, chart, rate, log tail, last items and masked settings", async () => {
  await withApp({}, async ({ app, jobs, paths, dir }) => {
    const job = jobs.insert(record({
      id: "live-7",
      project: "shop",
      spider: "books",
      settings: ["max_items=500", "http_auth=shop.example=me:pw-page-1"],
      args: ["category=poetry", "api_key=pw-page-2"],
      createdAt: Date.now() - 130_000,
    }));
    jobs.start("live-7", 5150, Date.now() - 125_000);
    const series = Array.from({ length: 25 }, (_, i) => [i * 5, i * 12, i * 40]);
    await writeAt(
      paths.statsFile(job),
      JSON.stringify({ pages: 288, items: 960, errors: 3, finish_reason: null, elapsed_seconds: 120, series }),
    );
    const log = Array.from({ length: 100 }, (_, i) => `2026-12-01T10:00:${i % 60} INFO line ${i}`).join("\n") + "\n";
    await writeAt(paths.logFile(job), log + "INFO failed redis://:pw-page-3@127.0.0.1:1/0\n");
    const items = Array.from({ length: 9 }, (_, i) => JSON.stringify({ title: `Book <${i}>`, n: i })).join("\n");
    await writeAt(paths.itemsFile(job), items + "\n" + '{"title": "half writ');

    await withServedApp(app, (origin) =>
      withChromium(async (browser) => {
        const { page, problems, strayRequests } = await watchedPage(browser, origin);
        // Linked from the list.
        await page.goto(`${origin}/`, { waitUntil: "load" });
        await Promise.all([page.waitForNavigation(), page.click(`a[href="/job/shop/live-7"]`)]);
        assert.equal(new URL(page.url()).pathname, "/job/shop/live-7");
        await assertScreenshot(await screenshot(page, SHOTS ?? join(dir, "shots"), "job-page"));

        const text = await bodyText(page);
        assert.match(text, /Job live-7 running/);
        assert.match(text, /pages\/s now\s+2\.4/, "the rate between the last two points: 12 pages in 5 s");
        assert.match(text, /runtime\s+2 min \d\d s/, "started 125 s ago");
        assert.match(text, /pages\s+288/);
        assert.match(text, /960 in all/);
        // The chart: two lines of 25 points each, drawn inside the page.
        const chart = await page.$$eval("svg.chart polyline", (lines) =>
          lines.map((line) => [line.getAttribute("class"), line.getAttribute("points")!.split(" ").length]));
        assert.deepEqual(chart, [["pages", 25], ["items", 25]]);
        const box = await page.$eval("svg.chart", (svg) =>
          svg.getBoundingClientRect().width);
        assert.ok(box > 300, "the chart is drawn at its size");
        // The log's end, whole lines only, in the live tail's frame (dashboard_pages.ts: 200 lines at most); the
        // last items (not the one still being written), escaped.
        const tailFrame = await (await page.$("iframe.tail"))!.contentFrame();
        const logTail = await tailFrame!.$eval("#log", (pre) => pre.textContent!);
        assert.match(
          logTail,
          /^2026-12-01T10:00:0 INFO line 0\n[\s\S]*line 99\nINFO failed redis:\/\/:\*\*\*@127\.0\.0\.1:1\/0$/,
        );
        assert.equal(await tailFrame!.$$eval("script", (scripts) => scripts.length), 0);
        const lastItems = await page.$eval("#items", (pre) => pre.textContent!);
        assert.match(lastItems, /Book <4>[\s\S]*Book <8>/);
        assert.doesNotMatch(lastItems, /Book <3>|half writ/);
        // Settings and arguments, secrets masked.
        assert.match(text, /http_auth\s+shop\.example=me:\*\*\*/);
        assert.match(text, /api_key\s+\*\*\*/);
        assert.match(text, /category\s+poetry/);
        const html = await page.content();
        assert.doesNotMatch(html, /pw-page-\d/);
        // It follows the job: a reload every 5 s while it runs; no script anywhere.
        assert.equal(await page.$eval('meta[http-equiv="refresh"]', (meta) => meta.getAttribute("content")), "5");
        assert.equal(await page.$$eval("script", (scripts) => scripts.length), 0);
        assert.deepEqual(problems, []);
        assert.deepEqual(strayRequests, []);

        // Once finished: its outcome, no reload.
        jobs.end("live-7", "failed");
        await page.reload({ waitUntil: "load" });
        assert.match(await bodyText(page), /Job live-7 failed/);
        assert.equal(await page.$('meta[http-equiv="refresh"]'), null);
        assert.equal((await page.goto(`${origin}/job/news/live-7`))?.status(), 404, "the job is not news's");
      }));
  });
});

Deno.test("the list on / filters by project, spider and outcome, and pages through 1,000 jobs in small pages", async () => {
  await withApp({}, async ({ app, jobs, dir }) => {
    const outcomes = ["finished", "failed", "cancelled", "lost"] as const;
    for (let i = 0; i < 1000; i++) {
      const id = `j${String(i).padStart(4, "0")}`;
      jobs.insert(record({
        id,
        project: i % 2 === 0 ? "shop" : "news",
        spider: i % 2 === 0 ? (i % 4 === 0 ? "books" : "plain") : "feeds",
        createdAt: Date.UTC(2026, 0, 1) + i * 1000,
      }));
      jobs.start(id, 100, Date.UTC(2026, 0, 1) + i * 1000 + 10);
      jobs.end(id, outcomes[i % 4], Date.UTC(2026, 0, 1) + i * 1000 + 500);
    }
    await withServedApp(app, (origin) =>
      withChromium(async (browser) => {
        const { page, problems } = await watchedPage(browser, origin);
        const response = await page.goto(`${origin}/`, { waitUntil: "load" });
        const size = (await response!.text()).length;
        assert.ok(size < 60_000, `the first page is small: ${size} B`);
        const rows = () => page.$$eval("table.list-finished tbody tr", (trs) => trs.map((tr) => tr.textContent!));
        assert.equal((await rows()).length, 50);
        assert.match(await page.$eval(".pager", (p) => p.textContent!), /page 1 of 20/);
        assert.match((await rows())[0], /j0999/, "the most recent first");

        // Outcome "failed": every row failed; then the project narrows it further, keeping the outcome.
        await Promise.all([page.waitForNavigation(), page.click('a.filter-outcome[href="/?outcome=failed"]')]);
        assert.ok((await rows()).every((row) => /failed/.test(row)));
        assert.match(await page.$eval(".pager", (p) => p.textContent!), /page 1 of 5/);
        await Promise.all([
          page.waitForNavigation(),
          page.click('a.filter-project[href="/?project=news&outcome=failed"]'),
        ]);
        const newsFailed = await rows();
        assert.ok(newsFailed.every((row) => /news/.test(row) && /failed/.test(row)), newsFailed[0]);
        assert.equal(await page.$eval("#finished .count", (span) => span.textContent), "250");

        // Paging keeps the filters: older, then newer again.
        await Promise.all([page.waitForNavigation(), page.click('a[rel="next"]')]);
        assert.equal(new URL(page.url()).search, "?project=news&outcome=failed&page=2");
        assert.ok((await rows()).every((row) => /news/.test(row) && /failed/.test(row)));
        await screenshot(page, SHOTS ?? join(dir, "shots"), "list-filtered");
        await Promise.all([page.waitForNavigation(), page.click('a[rel="prev"]')]);
        assert.equal(new URL(page.url()).search, "?project=news&outcome=failed");

        // The spider filter, from "all".
        await page.goto(`${origin}/?spider=books`, { waitUntil: "load" });
        assert.ok((await rows()).every((row) => /books/.test(row)));
        assert.equal(await page.$eval("#finished .count", (span) => span.textContent), "250");
        assert.deepEqual(problems, []);
      }));
  });
});
