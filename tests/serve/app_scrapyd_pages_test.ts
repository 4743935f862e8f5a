/**
 * scrapyd's HTML pages, read the way ScrapydWeb reads them (_scrapydweb_parser.ts): /jobs gives the same jobs as
 * listjobs.json, and /logs/ and /items/ lead down to every job's files.
 */
import assert from "node:assert/strict";
import type { Hono } from "hono";
import { cellHref, jobState, parseJobsPage, parseListing } from "./_scrapydweb_parser.ts";
import { record, withApp, writeAt } from "./_setup.ts";
import type { FakeJobs } from "./_fake_jobs.ts";
import type { ServePaths } from "../../src/serve/types.ts";

/** Two projects' jobs in every state, with log and items files for the ones that started. */
async function fillJobs(jobs: FakeJobs, paths: ServePaths): Promise<void> {
  const add = (id: string, project: string, spider: string, priority = 0) =>
    jobs.insert(record({ id, project, spider, priority, createdAt: Date.UTC(2024, 0, 1, 0, 0, jobs.list().length) }));
  add("wait-low", "shop", "books", 0);
  add("wait-high", "news", "feeds", 5);
  add("Run-1", "shop", "books");
  add("done-1", "shop", "plain");
  add("failed-1", "news", "feeds");
  add("never", "shop", "books");
  jobs.start("Run-1", 4321, Date.UTC(2024, 0, 2, 3, 4, 5));
  jobs.start("done-1", 99, Date.UTC(2024, 0, 2, 3, 0, 0));
  jobs.end("done-1", "finished", Date.UTC(2024, 0, 2, 4, 2, 3));
  jobs.start("failed-1", 98, Date.UTC(2024, 0, 2, 3, 0, 0));
  jobs.end("failed-1", "failed", Date.UTC(2024, 0, 3, 4, 0, 1));
  jobs.end("never", "cancelled", Date.UTC(2024, 0, 2, 5, 0, 0));
  for (const job of jobs.list().filter((job) => job.startedAt !== null)) {
    await writeAt(paths.logFile(job), `log of ${job.id}\n`);
    await writeAt(paths.itemsFile(job), `{"n":1}\n`.repeat(300));
  }
}

async function get(app: Hono, path: string): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await app.request(path);
  return { status: response.status, text: await response.text(), headers: response.headers };
}

Deno.test("/jobs, read as ScrapydWeb reads it, gives the same jobs in the same states as listjobs.json", async () => {
  await withApp({}, async ({ app, jobs, paths }) => {
    await fillJobs(jobs, paths);
    const page = await get(app, "/jobs");
    assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
    assert.match(page.headers.get("content-security-policy") ?? "", /default-src 'none'.*form-action 'none'/);
    const parsed = parseJobsPage(page.status, page.text);
    const listed = JSON.parse((await get(app, "/listjobs.json")).text);
    for (const state of ["pending", "running", "finished"] as const) {
      const fromPage = parsed.filter((job) => jobState(job) === state);
      const fromJson = listed[state] as Record<string, string | null>[];
      assert.deepEqual(
        fromPage.map((job) => [job.project, job.spider, job.job]).sort(),
        fromJson.map((job) => [job.project, job.spider, job.id]).sort(),
        state,
      );
      for (const job of fromPage) {
        const json = fromJson.find((entry) => entry.id === job.job)!;
        if (json.start_time !== null) {
          assert.equal(job.start, json.start_time!.slice(0, 19), `${job.job}: Start is start_time to the second`);
          assert.equal(cellHref(job.href_log), json.log_url);
          assert.equal(cellHref(job.href_items), json.items_url);
        }
        if (state === "finished") assert.equal(job.finish, json.end_time!.slice(0, 19));
        if (state === "running") assert.equal(job.pid, String(json.pid));
      }
    }
    // scrapyd's own formats: a timedelta's "H:MM:SS", and its days.
    assert.equal(parsed.find((job) => job.job === "done-1")!.runtime, "1:02:03");
    assert.equal(parsed.find((job) => job.job === "failed-1")!.runtime, "1 day, 1:00:01");
    // Waiting jobs in the order they start, as scrapyd's queue lists them.
    assert.deepEqual(parsed.filter((job) => jobState(job) === "pending").map((job) => job.job), [
      "wait-high",
      "wait-low",
    ]);
    // Read-only: no form, and the page says why and what to use.
    assert.doesNotMatch(page.text, /<form|<script|onsubmit/i);
    assert.match(page.text, /read-only[\s\S]*Origin[\s\S]*cancel\.json/);
  });
});

Deno.test("/logs/ and /items/ list projects, spiders and files as scrapyd's listings, and their links lead to the files", async () => {
  await withApp({}, async ({ app, jobs, paths }) => {
    await fillJobs(jobs, paths);
    const listed = JSON.parse((await get(app, "/listjobs.json")).text);
    const started = [...listed.running, ...listed.finished].filter((job) => job.start_time !== null);
    for (const [which, urlOf] of [["logs", "log_url"], ["items", "items_url"]] as const) {
      const found: string[] = [];
      const top = await get(app, `/${which}/`);
      const projects = parseListing(top.status, top.text, which);
      assert.deepEqual(projects.map((row) => [row.odd_even, row.href, row.content_type]), [
        ["odd", "news/", "[Directory]"],
        ["even", "shop/", "[Directory]"],
      ]);
      for (const project of projects) {
        const spiders = await get(app, `/${which}/${project.href}`);
        for (const spider of parseListing(spiders.status, spiders.text, which)) {
          const files = await get(app, `/${which}/${project.href}${spider.href}`);
          for (const file of parseListing(files.status, files.text, which)) {
            assert.match(file.last_modified, /^\d{4}-\d\d-\d\d \d\d:\d\d$/);
            assert.equal(file.content_type, "[text/plain]");
            assert.equal(
              file.size,
              which === "logs" ? `${`log of ${file.filename.replace(/\.log$/, "")}\n`.length}B` : "2K",
            );
            const url = `/${which}/${project.href}${spider.href}${file.href}`;
            found.push(url);
            assert.equal((await app.request(url)).status, 200, url);
          }
        }
      }
      assert.deepEqual(found.sort(), started.map((job: Record<string, string>) => job[urlOf]).sort(), which);
    }
    assert.equal((await app.request("/logs")).headers.get("location"), "/logs/");
    assert.equal((await app.request("/logs/nope/")).status, 404);
    assert.equal((await app.request("/logs/..%2F/")).status, 404);
  });
});

Deno.test("an empty service's /jobs and /logs/ still read as scrapyd's, and / links to the three pages", async () => {
  await withApp({}, async ({ app }) => {
    const jobsPage = await get(app, "/jobs");
    assert.deepEqual(parseJobsPage(jobsPage.status, jobsPage.text), []);
    for (const which of ["logs", "items"] as const) {
      const listing = await get(app, `/${which}/`);
      assert.deepEqual(parseListing(listing.status, listing.text, which), []);
    }
    const home = (await get(app, "/")).text;
    for (const href of ["/jobs", "/logs/", "/items/"]) assert.ok(home.includes(`href="${href}"`), href);
  });
});

Deno.test("behind a proxy at a sub-path, the pages' links carry X-Forwarded-Prefix; a prefix that is not a plain path is ignored", async () => {
  await withApp({}, async ({ app, jobs, paths }) => {
    await fillJobs(jobs, paths);
    const at = async (path: string, prefix: string) =>
      await (await app.request(path, { headers: { "X-Forwarded-Prefix": prefix } })).text();
    const home = await at("/", "/path/to");
    assert.ok(home.includes('"/path/to/jobs"') && home.includes('"/path/to/logs/"'), "scrapyd's own test");
    assert.ok(home.includes('href="/path/to/job/shop/done-1"'));
    assert.doesNotMatch(home, /href="\/(?!path\/to\/)/, "every absolute link prefixed");
    assert.ok((await at("/jobs", "/path/to/")).includes('href="/path/to/logs/shop/plain/done-1.log"'));
    assert.ok((await at("/job/shop/done-1", "/crawl")).includes('href="/crawl/"'));
    for (const hostile of ['/x"><b>', "//evil.example", "/a/../b", "https://evil.example/", "relative"]) {
      const page = await at("/", hostile);
      assert.ok(page.includes('href="/jobs"'), `${hostile} ignored`);
      assert.doesNotMatch(page, /evil|<b>/);
    }
  });
});

Deno.test("/logs/stats.json gives each started job's pages, items and finish reason in LogParser's shape, as ScrapydWeb reads it", async () => {
  await withApp({}, async ({ app, jobs, paths }) => {
    await fillJobs(jobs, paths);
    const done = jobs.get("done-1")!;
    await writeAt(paths.statsFile(done), JSON.stringify({ pages: 2, items: 20, finish_reason: "finished" }));
    const response = await app.request("/logs/stats.json");
    assert.equal(response.status, 200);
    const stats = await response.json();
    assert.equal(stats.status, "ok");
    assert.equal(stats.logparser_version, "0.8.4");
    const entry = stats.datas.shop.plain["done-1"];
    assert.deepEqual(
      [entry.pages, entry.items, entry.finish_reason, entry.runtime, entry.status],
      [2, 20, "finished", "1:02:03", "ok"],
    );
    assert.match(entry.first_log_time, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/, "to the second, as scrapyd prints times");
    assert.equal(entry.size, `log of done-1\n`.length);
    // A job without stats yet: null, which ScrapydWeb stores as no number; one that never started has no entry.
    assert.deepEqual([stats.datas.news.feeds["failed-1"].pages, stats.datas.news.feeds["failed-1"].items], [
      null,
      null,
    ]);
    assert.equal(stats.datas.shop.books.never, undefined);
    assert.equal(stats.datas.shop.books["wait-low"], undefined);
    assert.equal(stats.datas.shop.books["Run-1"].status, "running");
  });
});
