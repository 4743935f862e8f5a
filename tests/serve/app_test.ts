/** The HTTP app, through app.request (no socket): every endpoint's answer, as scrapyd's clients expect it. */
import assert from "node:assert/strict";
import type { Hono } from "hono";
import { form, record, withApp, writeAt } from "./_setup.ts";

async function json(app: Hono, path: string, init?: RequestInit): Promise<Record<string, unknown>> {
  const response = await app.request(path, init);
  assert.match(response.headers.get("content-type") ?? "", /^application\/json/, path);
  return await response.json();
}

function post(pairs: [string, string][]): RequestInit {
  return form(pairs);
}

Deno.test("daemonstatus.json counts pending, running and finished jobs", async () => {
  await withApp({}, async ({ app, jobs }) => {
    assert.deepEqual(await json(app, "/daemonstatus.json"), {
      node_name: "box",
      status: "ok",
      pending: 0,
      running: 0,
      finished: 0,
    });
    for (const id of ["a", "b", "c"]) jobs.insert(record({ id, project: "shop", spider: "books" }));
    jobs.start("b");
    jobs.start("c");
    jobs.end("c", "failed");
    assert.deepEqual(await json(app, "/daemonstatus.json"), {
      node_name: "box",
      status: "ok",
      pending: 1,
      running: 1,
      finished: 1,
    });
  });
});

Deno.test("listprojects.json and listversions.json answer as scrapyd does, with no versions ever", async () => {
  await withApp({}, async ({ app }) => {
    assert.deepEqual(await json(app, "/listprojects.json"), {
      node_name: "box",
      status: "ok",
      projects: ["shop", "news"],
    });
    assert.deepEqual(await json(app, "/listversions.json?project=shop"), {
      node_name: "box",
      status: "ok",
      versions: [],
    });
    assert.deepEqual(await json(app, "/listversions.json"), {
      node_name: "box",
      status: "error",
      message: "'project' parameter is required",
    });
  });
});

Deno.test("listspiders.json lists a project's spiders and names a file that failed to load, password masked", async () => {
  await withApp({}, async ({ app }) => {
    const answer = await json(app, "/listspiders.json?project=SHOP");
    assert.deepEqual(answer, {
      node_name: "box",
      status: "ok",
      spiders: ["books", "plain"],
      errors: [{ file: "broken.ts", error: "cannot reach redis://:***@127.0.0.1:1/0 while loading" }],
    });
    assert.deepEqual(await json(app, "/listspiders.json?project=nope"), {
      node_name: "box",
      status: "error",
      message: "project 'nope' not found",
    });
  });
});

Deno.test("parameters are read from the query string and from a form body, urlencoded or multipart", async () => {
  await withApp({}, async ({ app, jobs }) => {
    const answer = await json(app, "/schedule.json?project=news", post([["spider", "feeds"], ["jobid", "Q1"]]));
    assert.deepEqual(answer, { node_name: "box", status: "ok", jobid: "Q1" });
    const multipart = new FormData();
    multipart.set("project", "news");
    multipart.set("spider", "feeds");
    multipart.set("jobid", "m1");
    assert.equal((await json(app, "/schedule.json", { method: "POST", body: multipart })).jobid, "m1");
    // A POST with everything in the query string and no body at all.
    assert.equal((await json(app, "/cancel.json?project=news&job=m1", { method: "POST" })).prevstate, "pending");
    assert.equal(jobs.get("m1")!.outcome, "cancelled");
    assert.equal((await json(app, "/listspiders.json?project=news")).status, "ok");
  });
});

Deno.test("schedule.json queues the checked job and answers with its id", async () => {
  await withApp({}, async ({ app, jobs }) => {
    const answer = await json(
      app,
      "/schedule.json",
      post([
        ["project", "shop"],
        ["spider", "books"],
        ["setting", "max_items=500"],
        ["setting", "concurrency=8"],
        ["category", "fiction"],
        ["priority", "3"],
      ]),
    );
    assert.deepEqual(Object.keys(answer).sort(), ["jobid", "node_name", "status"]);
    assert.equal(answer.status, "ok");
    assert.match(String(answer.jobid), /^[0-9a-f]{32}$/);
    const job = jobs.get(String(answer.jobid))!;
    assert.equal(job.state, "pending");
    assert.deepEqual(job.settings, ["max_items=500", "concurrency=8"]);
    assert.deepEqual(job.args, ["category=fiction"]);
    assert.equal(job.priority, 3);
    assert.equal(job.spider, "books");
  });
});

Deno.test("schedule.json refusals are scrapyd-style errors, and nothing is queued", async () => {
  await withApp({}, async ({ app, jobs }) => {
    const cases: [[string, string][], RegExp][] = [
      [[["spider", "books"]], /^'project' parameter is required$/],
      [[["project", "nope"], ["spider", "books"]], /^project 'nope' not found$/],
      [
        [["project", "news"], ["spider", "music"]],
        /^spider 'music' not found in project 'news' \(its spiders: feeds, /,
      ],
      [[["project", "news"], ["spider", "feeds"], ["jobid", "../x"]], /^jobid "\.\.\/x" is invalid/],
      [[["project", "news"], ["spider", "feeds"], ["priority", "high"]], /^priority is invalid/],
      [[["project", "news"], ["spider", "feeds"], ["setting", "DOWNLOAD_DELAY=1"]], /^unknown setting DOWNLOAD_DELAY/],
      [
        [["project", "news"], ["spider", "feeds"], ["setting", "proxy_rotation=per_request"]],
        /^proxy_rotation needs proxies$/,
      ],
      [[["project", "news"], ["spider", "feeds"], ["start_urls", "x"]], /would replace the Spider attribute startUrls/],
      [
        [["project", "news"], ["spider", "feeds"], ["setting", "checkpoint=/etc"]],
        /^checkpoint "\/etc" is an absolute path/,
      ],
      [
        [["project", "news"], ["spider", "feeds"], ["setting", "deltafetch=s3://b/seen"]],
        /^deltafetch "s3:\/\/b\/seen" is a URL/,
      ],
      [[["project", "news"], ["spider", "feeds"], ["setting", "har=../x.har"]], /^har "\.\.\/x\.har" contains "\.\."/],
      [[["project", "news"], ["spider", "feeds"], ["setting", "queue=redis://:pw123@127.0.0.1:1/x"]], /queue/],
    ];
    for (const [pairs, pattern] of cases) {
      const response = await app.request("/schedule.json", post(pairs));
      assert.equal(response.status, 200);
      const answer = await response.json();
      assert.equal(answer.status, "error", JSON.stringify(pairs));
      assert.equal(answer.node_name, "box");
      assert.match(answer.message, pattern);
      assert.doesNotMatch(answer.message, /pw123/);
    }
    assert.deepEqual(jobs.list(), []);
  });
});

Deno.test("job ids ignore case: Job1 and job1 are the same job", async () => {
  await withApp({}, async ({ app, jobs }) => {
    const first = await json(
      app,
      "/schedule.json",
      post([["project", "news"], ["spider", "feeds"], ["jobid", "Job1"]]),
    );
    assert.equal(first.jobid, "Job1", "the id keeps the spelling it was given");
    const again = await json(
      app,
      "/schedule.json",
      post([["project", "news"], ["spider", "feeds"], ["jobid", "JOB1"]]),
    );
    assert.deepEqual(again, {
      node_name: "box",
      status: "error",
      message: "job 'Job1' already exists (job ids ignore case)",
    });
    assert.equal(jobs.list().length, 1);
    const stats = await json(app, "/jobstats.json?job=JoB1");
    assert.equal(stats.job, "Job1");
    assert.deepEqual(await json(app, "/cancel.json", post([["project", "NEWS"], ["job", "JOB1"]])), {
      node_name: "box",
      status: "ok",
      prevstate: "pending",
    });
  });
});

Deno.test("cancel.json answers with the state the job was in, or null when the project has no such job", async () => {
  await withApp({}, async ({ app, jobs }) => {
    jobs.insert(record({ id: "run1", project: "shop", spider: "books" }));
    jobs.start("run1");
    jobs.insert(record({ id: "wait1", project: "shop", spider: "books" }));
    const cancel = (project: string, job: string) =>
      json(app, "/cancel.json", post([["project", project], ["job", job]]));
    assert.equal((await cancel("shop", "run1")).prevstate, "running");
    assert.equal((await cancel("shop", "wait1")).prevstate, "pending");
    assert.equal(jobs.get("wait1")!.outcome, "cancelled");
    assert.equal((await cancel("news", "run1")).prevstate, null);
    assert.equal((await cancel("shop", "nope")).prevstate, null);
    assert.deepEqual(await cancel("nope", "run1"), {
      node_name: "box",
      status: "error",
      message: "project 'nope' not found",
    });
    assert.equal((await json(app, "/cancel.json", post([["project", "shop"]]))).message, "'job' parameter is required");
  });
});

Deno.test("POST endpoints refuse GET and GET endpoints refuse POST, with 405 and Allow", async () => {
  await withApp({}, async ({ app, jobs }) => {
    const get = await app.request("/schedule.json?project=news&spider=feeds");
    assert.equal(get.status, 405);
    assert.equal(get.headers.get("allow"), "POST, OPTIONS");
    assert.equal((await get.json()).status, "error");
    const postList = await app.request("/listjobs.json", post([]));
    assert.equal(postList.status, 405);
    assert.equal(postList.headers.get("allow"), "GET, HEAD, OPTIONS");
    assert.equal((await app.request("/daemonstatus.json", { method: "HEAD" })).status, 200);
    assert.deepEqual(jobs.list(), []);
  });
});

Deno.test("listjobs.json lists jobs with scrapyd's fields and the outcome: waiting ones without log or items links, none cancelled while waiting", async () => {
  await withApp({}, async ({ app, jobs }) => {
    const started = new Date(2024, 2, 4, 5, 6, 7, 89).getTime();
    const ended = new Date(2024, 2, 4, 6, 0, 0, 0).getTime();
    jobs.insert(record({ id: "done1", project: "shop", spider: "books", createdAt: 1 }));
    jobs.start("done1", 111, started);
    jobs.end("done1", "finished", ended);
    jobs.insert(record({ id: "run1", project: "shop", spider: "plain", createdAt: 2 }));
    jobs.start("run1", 222, started);
    jobs.insert(record({
      id: "wait1",
      project: "news",
      spider: "feeds",
      createdAt: 3,
      priority: 2,
      settings: ["max_items=5", "proxies=http://u:hunter2@127.0.0.1:9"],
      args: ["category=fiction"],
    }));
    jobs.insert(record({ id: "gone1", project: "shop", spider: "books", createdAt: 4 }));
    jobs.cancel("shop", "gone1");
    const answer = await json(app, "/listjobs.json");
    assert.deepEqual(answer, {
      node_name: "box",
      status: "ok",
      pending: [{
        id: "wait1",
        project: "news",
        spider: "feeds",
        pid: null,
        start_time: null,
        end_time: null,
        outcome: null,
        priority: 2,
        version: null,
        settings: { max_items: "5", proxies: "http://u:***@127.0.0.1:9" },
        args: { category: "fiction" },
      }],
      running: [{
        id: "run1",
        project: "shop",
        spider: "plain",
        pid: 222,
        start_time: "2024-03-04 05:06:07.089000",
        end_time: null,
        log_url: "/logs/shop/plain/run1.log",
        items_url: "/items/shop/plain/run1.jl",
        outcome: null,
      }],
      finished: [{
        id: "done1",
        project: "shop",
        spider: "books",
        pid: 111,
        start_time: "2024-03-04 05:06:07.089000",
        end_time: "2024-03-04 06:00:00.000000",
        log_url: "/logs/shop/books/done1.log",
        items_url: "/items/shop/books/done1.jl",
        outcome: "finished",
      }],
    });
    const shop = await json(app, "/listjobs.json?project=Shop");
    assert.deepEqual([shop.pending, (shop.running as unknown[]).length, (shop.finished as unknown[]).length], [
      [],
      1,
      1,
    ]);
    assert.equal((await json(app, "/listjobs.json?project=nope")).message, "project 'nope' not found");
  });
});

Deno.test("jobstats.json gives the stats file's numbers, null before there are any", async () => {
  await withApp({}, async ({ app, jobs, paths }) => {
    const job = jobs.insert(record({ id: "run1", project: "shop", spider: "books" }));
    jobs.start("run1");
    assert.deepEqual(await json(app, "/jobstats.json?job=run1"), {
      node_name: "box",
      status: "ok",
      job: "run1",
      project: "shop",
      spider: "books",
      state: "running",
      outcome: null,
      stats: null,
    });
    const stats = { pages: 12, items: 30, finish_reason: null, status: { "200": 12 } };
    await writeAt(paths.statsFile(job), JSON.stringify(stats));
    assert.deepEqual((await json(app, "/jobstats.json?job=run1")).stats, stats);
    jobs.end("run1", "cancelled");
    const finished = await json(app, "/jobstats.json?job=RUN1&project=shop");
    assert.equal(finished.outcome, "cancelled");
    assert.deepEqual(finished.stats, stats);
    assert.deepEqual(await json(app, "/jobstats.json?job=nope"), {
      node_name: "box",
      status: "error",
      message: "job 'nope' not found",
    });
    assert.equal((await json(app, "/jobstats.json?job=run1&project=news")).status, "error");
    assert.equal((await json(app, "/jobstats.json")).message, "'job' parameter is required");
  });
});

Deno.test("delproject.json, addversion.json and delversion.json answer with an error saying why", async () => {
  await withApp({}, async ({ app }) => {
    const del = await json(app, "/delproject.json", post([["project", "shop"]]));
    assert.equal(del.status, "error");
    assert.match(String(del.message), /take its --project option off and restart/);
    const add = await json(app, "/addversion.json", post([["project", "shop"], ["version", "r1"], ["egg", "x"]]));
    assert.equal(add.status, "error");
    assert.match(
      String(add.message),
      /^addversion\.json is not supported: netweir serve does not deploy code over HTTP/,
    );
    const delVersion = await json(app, "/delversion.json", post([["project", "shop"]]));
    assert.match(String(delVersion.message), /^delversion\.json is not supported/);
    // With a version named, scrapyd's words: there are none, so it is not found.
    const named = await json(app, "/delversion.json", post([["project", "shop"], ["version", "r1"]]));
    assert.equal(named.message, "version 'r1' not found");
  });
});

Deno.test("an unknown endpoint is a 404 JSON error", async () => {
  await withApp({}, async ({ app }) => {
    const response = await app.request("/status.jsn");
    assert.equal(response.status, 404);
    assert.deepEqual(await response.json(), {
      node_name: "box",
      status: "error",
      message: "no such endpoint: /status.jsn",
    });
  });
});

Deno.test("a form body over 1 MiB is refused with 413 before it is read", async () => {
  await withApp({}, async ({ app, jobs }) => {
    const response = await app.request(
      "/schedule.json",
      post([["project", "news"], ["spider", "feeds"], ["notes", "x".repeat(1024 * 1024)]]),
    );
    assert.equal(response.status, 413);
    assert.equal((await response.json()).status, "error");
    assert.deepEqual(jobs.list(), []);
  });
});

Deno.test("listjobs.json and jobstats.json mask passwords: http_auth, URLs, secret headers and arguments", async () => {
  await withApp({}, async ({ app, jobs, paths }) => {
    jobs.insert(record({
      id: "w1",
      project: "shop",
      spider: "books",
      settings: [
        "http_auth=a.example=me:pw1,b.example=you:pw2",
        'httpAuth={"c.example":{"user":"u","password":"pw3"}}',
        "queue=redis://:pw4@127.0.0.1:6379/0",
        'default_headers={"Authorization":"Bearer pw5","Accept":"text/html"}',
      ],
      args: ["api_key=pw6", "site=http://x:pw7@127.0.0.1/"],
    }));
    const listed = await json(app, "/listjobs.json");
    const waiting = (listed.pending as Record<string, Record<string, string>>[])[0];
    assert.deepEqual(waiting.settings, {
      http_auth: "a.example=me:***,b.example=you:***",
      httpAuth: '{"c.example":{"user":"u","password":"***"}}',
      queue: "redis://:***@127.0.0.1:6379/0",
      default_headers: '{"Authorization":"***","Accept":"text/html"}',
    });
    assert.deepEqual(waiting.args, { api_key: "***", site: "http://x:***@127.0.0.1/" });
    jobs.start("w1");
    await writeAt(paths.statsFile(jobs.get("w1")!), JSON.stringify({ last_error: "failed redis://:pw8@h:1/0" }));
    const stats = await json(app, "/jobstats.json?job=w1");
    assert.deepEqual(stats.stats, { last_error: "failed redis://:***@h:1/0" });
    assert.doesNotMatch(JSON.stringify([listed, stats]), /pw\d/);
  });
});
