/** The app's file routes and page: a job's log and items (by Range), and the status page at `/`. */
import assert from "node:assert/strict";
import { record, withApp, writeAt } from "./_setup.ts";

Deno.test("a job's log and items are served, ranges included, items as .jl and .jsonl alike", async () => {
  await withApp({}, async ({ app, jobs, paths }) => {
    jobs.insert(record({ id: "run1", project: "shop", spider: "books" }));
    const job = jobs.start("run1");
    await writeAt(paths.logFile(job), "line one\nline two\n");
    await writeAt(paths.itemsFile(job), '{"title":"a"}\n{"title":"b"}\n');
    const log = await app.request("/logs/shop/books/run1.log");
    assert.equal(log.status, 200);
    assert.match(log.headers.get("content-type") ?? "", /^text\/plain/);
    assert.equal(await log.text(), "line one\nline two\n");
    const tail = await app.request("/logs/shop/books/RUN1.log", { headers: { range: "bytes=-9" } });
    assert.equal(tail.status, 206);
    assert.equal(await tail.text(), "line two\n");
    for (const path of ["/items/shop/books/run1.jl", "/items/shop/books/run1.jsonl"]) {
      const items = await app.request(path);
      assert.equal(items.status, 200);
      assert.equal(await items.text(), '{"title":"a"}\n{"title":"b"}\n');
    }
    for (
      const path of [
        "/logs/shop/plain/run1.log",
        "/logs/news/books/run1.log",
        "/logs/shop/books/nope.log",
        "/logs/shop/books/run1.jl",
        "/items/shop/books/run1.log",
        "/logs/shop/books/..%2F..%2Fjobs.db",
      ]
    ) {
      const response = await app.request(path);
      assert.equal(response.status, 404, path);
      await response.body?.cancel();
    }
  });
});

Deno.test("a job with no log yet gets a 404", async () => {
  await withApp({}, async ({ app, jobs }) => {
    jobs.insert(record({ id: "wait1", project: "shop", spider: "books" }));
    const response = await app.request("/logs/shop/books/wait1.log");
    assert.equal(response.status, 404);
    await response.body?.cancel();
  });
});

Deno.test("the status page lists jobs with their outcome, links and running stats, and escapes what it shows", async () => {
  await withApp({}, async ({ app, jobs, paths }) => {
    const hostile = "<img src=x onerror=alert(1)>";
    jobs.insert(record({ id: "evil1", project: "news", spider: hostile, createdAt: 1 }));
    jobs.start("evil1");
    jobs.end("evil1", "failed");
    jobs.insert(record({ id: "run1", project: "shop", spider: "books", createdAt: 2 }));
    const running = jobs.start("run1");
    await writeAt(paths.statsFile(running), JSON.stringify({ pages: 1234, items: 56, errors: 0, elapsed_seconds: 75 }));
    jobs.insert(record({ id: "wait1", project: "shop", spider: "plain", createdAt: 3 }));
    const response = await app.request("/");
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^text\/html/);
    assert.match(response.headers.get("content-security-policy") ?? "", /default-src 'none'/);
    const html = await response.text();
    assert.doesNotMatch(html, /<img/);
    assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
    assert.match(html, /class="outcome failed">failed</);
    assert.match(html, /1,234 pages · 56 items · 0 errors · 1 min 15 s/);
    assert.match(html, /<a href="\/logs\/shop\/books\/run1\.log">log<\/a>/);
    assert.match(html, /<a href="\/items\/shop\/books\/run1\.jl">items<\/a>/);
    assert.match(html, /wait1/);
    assert.match(html, /<meta http-equiv="refresh" content="5">/);
    assert.doesNotMatch(html, /<script/);
  });
});
