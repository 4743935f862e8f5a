/**
 * The dashboard's actions at the request level, on the real job service (jobs.db, the runner starting the fake
 * crawl) and the real app: what a browser's form posts do, and every post that is not the service's own page's
 * refused (no token, a wrong one, another session's, a foreign Origin, Origin null, a cross-site fetch, a rebinding
 * Host, a form of more than 1,024 fields) with nothing done. The JSON API answers as before. With a login, the buttons need it. About 10 s (a few fake
 * crawl processes).
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createApp } from "../../src/serve/app.ts";
import { TOKEN_FIELD } from "../../src/serve/csrf.ts";
import { type OpenedJobService, openJobService } from "../../src/serve/job_service.ts";
import { FAKE_CRAWL, memoryLog, waitUntil, withTempDir } from "./_job_helpers.ts";
import { fixtureRegistry, form, record, withApp, writeAt } from "./_setup.ts";
import type { Hono } from "hono";

const ORIGIN = "http://127.0.0.1:6800";

interface Browser {
  /** GET as a browser's navigation: the session cookie kept from the first answer. */
  get(path: string): Promise<Response>;
  /** The token the last page carried. */
  token: string;
  cookie: string;
  /** POST a form as the service's own page would: its Origin, same-origin fetch metadata, the cookie. */
  post(path: string, fields: Record<string, string>, headers?: Record<string, string>): Promise<Response>;
  /** POST to the action /ui/NAME with the session's token, as the page's button or form does. */
  act(name: string, fields: Record<string, string>): Promise<Response>;
}

function browserOn(app: Hono): Browser {
  const browser: Browser = {
    token: "",
    cookie: "",
    async get(path) {
      const response = await app.request(`${ORIGIN}${path}`, {
        headers: { host: "127.0.0.1:6800", ...(browser.cookie ? { cookie: browser.cookie } : {}) },
      });
      const set = response.headers.get("set-cookie");
      if (set) browser.cookie = set.split(";")[0];
      const html = await response.clone().text();
      const token = new RegExp(`name="${TOKEN_FIELD}" value="([^"]+)"`).exec(html);
      if (token) browser.token = token[1];
      return response;
    },
    async post(path, fields, headers = {}) {
      return await app.request(`${ORIGIN}${path}`, {
        method: "POST",
        headers: {
          host: "127.0.0.1:6800",
          origin: ORIGIN,
          "sec-fetch-site": "same-origin",
          "content-type": "application/x-www-form-urlencoded",
          cookie: browser.cookie,
          ...headers,
        },
        body: new URLSearchParams(fields).toString(),
      });
    },
    act: (name, fields) => browser.post(`/ui/${name}`, { [TOKEN_FIELD]: browser.token, ...fields }),
  };
  return browser;
}

async function withService(body: (app: Hono, service: OpenedJobService, dir: string) => Promise<void>) {
  await withTempDir(async (dir) => {
    const service = await openJobService({
      dir: join(dir, "serve"),
      maxJobs: 2,
      cliCommand: FAKE_CRAWL,
      log: memoryLog(),
    });
    const app = createApp({
      jobs: service.runner,
      registry: fixtureRegistry(),
      paths: service.paths,
      nodeName: "box",
      loopback: true,
      schedules: service.scheduler,
    });
    try {
      await body(app, service, dir);
    } finally {
      await service.close();
    }
  });
}

Deno.test("form posts without the session's token, or from anywhere but the service's own page, are refused", async () => {
  await withService(async (app, service) => {
    const browser = browserOn(app);
    assert.equal((await browser.get("/new")).status, 200);
    assert.match(browser.cookie, /^netweir_serve_session=[A-Za-z0-9_-]{43}$/);
    assert.ok(browser.token.length > 0, "the page carries a token");
    const other = browserOn(app);
    await other.get("/new");
    assert.notEqual(other.token, browser.token, "each session its own token");
    const job = { project: "shop", spider: "shop/books", jobid: "never" };
    const refusals: [string, Promise<Response>, number][] = [
      ["no token", browser.post("/ui/schedule", { ...job, spider: "shop/books" }), 403],
      ["a wrong token", browser.post("/ui/schedule", { ...job, [TOKEN_FIELD]: "x".repeat(43) }), 403],
      ["another session's token", browser.post("/ui/schedule", { ...job, [TOKEN_FIELD]: other.token }), 403],
      ["no cookie", browser.post("/ui/schedule", { ...job, [TOKEN_FIELD]: browser.token }, { cookie: "" }), 403],
      [
        "a foreign Origin",
        browser.post("/ui/schedule", { ...job, [TOKEN_FIELD]: browser.token }, { origin: "http://evil.example" }),
        403,
      ],
      [
        "Origin null",
        browser.post("/ui/schedule", { ...job, [TOKEN_FIELD]: browser.token }, { origin: "null" }),
        403,
      ],
      [
        "a cross-site fetch",
        browser.post("/ui/schedule", { ...job, [TOKEN_FIELD]: browser.token }, { "sec-fetch-site": "cross-site" }),
        403,
      ],
      [
        // The right token, in a form of more fields than any of the dashboard's: read as empty (form_fields.ts).
        "more than 1,024 fields",
        browser.post("/ui/schedule", {
          ...job,
          [TOKEN_FIELD]: browser.token,
          ...Object.fromEntries(Array.from({ length: 1_024 }, (_, i) => [`pad${i}`, "x"])),
        }),
        403,
      ],
      [
        "a rebinding Host, its own Origin",
        browser.post("/ui/schedule", { ...job, [TOKEN_FIELD]: browser.token }, {
          host: "evil.example:6800",
          origin: "http://evil.example:6800",
        }),
        403,
      ],
    ];
    for (const [what, answer, status] of refusals) {
      const response = await answer;
      assert.equal(response.status, status, what);
      const text = await response.text();
      assert.doesNotMatch(text, /at \S+\.ts:\d+/, `${what}: no stack trace`);
    }
    assert.equal(service.runner.get("never"), undefined, "no job was scheduled");

    // Behind a proxy that speaks HTTPS and addresses the service as 127.0.0.1: the browser's Origin is the proxy's,
    // which X-Forwarded-Host names; without it the post is refused like any foreign one.
    const proxied = { origin: "https://crawl.example", "x-forwarded-host": "crawl.example" };
    const viaProxy = { ...job, [TOKEN_FIELD]: browser.token, jobid: "proxied" };
    const noHeader = await browser.post("/ui/schedule", viaProxy, { origin: "https://crawl.example" });
    assert.equal(noHeader.status, 403);
    const chain = await browser.post("/ui/schedule", viaProxy, {
      ...proxied,
      "x-forwarded-host": "a.example, crawl.example",
    });
    assert.equal(chain.status, 403);
    const behind = await browser.post("/ui/schedule", viaProxy, { ...proxied, "x-forwarded-prefix": "/crawl" });
    assert.equal(behind.status, 303);
    assert.equal(behind.headers.get("location"), "/crawl/job/shop/proxied", "sent on under the proxy's prefix");
    const prefixed = await (await app.request(`${ORIGIN}/new`, {
      headers: { host: "127.0.0.1:6800", cookie: browser.cookie, "x-forwarded-prefix": "/crawl" },
    })).text();
    assert.match(prefixed, /action="\/crawl\/ui\/schedule"/);
    assert.doesNotMatch(prefixed, /action="\/ui\//);

    // The JSON API: an Origin is refused as before, even the service's own; without one it answers as scrapyd's.
    const withOrigin = await app.request(`${ORIGIN}/schedule.json`, {
      ...form([["project", "shop"], ["spider", "books"]]),
      headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN, host: "127.0.0.1:6800" },
    });
    assert.equal(withOrigin.status, 403);
    assert.match((await withOrigin.json()).message, /Origin/);
    const get = await app.request(`${ORIGIN}/`, { headers: { origin: ORIGIN, host: "127.0.0.1:6800" } });
    assert.equal(get.status, 403, "a GET with an Origin is no form post");
    const plain = await app.request(`${ORIGIN}/schedule.json`, form([["project", "shop"], ["spider", "plain"]]));
    assert.equal((await plain.json()).status, "ok");
  });
});

Deno.test("a job scheduled, cancelled and re-run from the forms, a refused form kept, schedules added, paused, resumed, deleted", async () => {
  await withService(async (app, service, dir) => {
    const browser = browserOn(app);
    const page = await browser.get("/new");
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-security-policy")!, /form-action 'self'/);
    const html = await page.text();
    assert.match(html, /<optgroup label="shop">.*<option value="shop\/books">books<\/option>/s);
    assert.match(html, /<optgroup label="news">/);

    // A refused form comes back with its reason and what was typed, escaped.
    const bad = await browser.act("schedule", {
      spider: "shop/books",
      settings: "concurrency=0",
      args: 'category=<b>"poetry"</b>',
    });
    assert.equal(bad.status, 400);
    const badHtml = await bad.text();
    assert.match(badHtml, /class="notice" role="alert">[^<]*concurrency/);
    assert.match(badHtml, /category=&lt;b&gt;&quot;poetry&quot;&lt;\/b&gt;/, "the typed arguments kept, escaped");
    assert.doesNotMatch(badHtml, /<b>"poetry"/);
    // Secrets typed into a refused form are not sent back: their names stay, with empty values, and the page says so.
    const secret = await browser.act("schedule", {
      spider: "shop/books",
      settings: "http_auth=shop.example=me:pw-form-1\nconcurrency=0",
      args: "api_key=pw-form-2\ncategory=poetry",
    });
    assert.equal(secret.status, 400);
    const secretHtml = await secret.text();
    assert.doesNotMatch(secretHtml, /pw-form-\d/);
    assert.match(secretHtml, />http_auth=\nconcurrency=0<\/textarea>/);
    assert.match(secretHtml, />api_key=\ncategory=poetry<\/textarea>/);
    assert.match(secretHtml, /Not kept, as they hold secrets: http_auth, api_key\. Type them again\./);

    const gate = join(dir, "gate");
    const ok = await browser.act("schedule", {
      spider: "shop/books",
      settings: "max_items=7\n\n  concurrency=2  ",
      args: `wait_for=${gate}\ncategory=poetry`,
      jobid: "from-form",
    });
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.get("location"), "/job/shop/from-form");
    const job = service.runner.get("from-form")!;
    assert.deepEqual(job.settings.slice(0, 2), ["max_items=7", "concurrency=2"]);
    assert.deepEqual(job.args, [`wait_for=${gate}`, "category=poetry"]);
    await waitUntil("the job runs", () => service.runner.get("from-form")?.state === "running" || undefined);

    // Its page: a Cancel button and the live tail framed; the tail escapes what the log says.
    const jobPage = await (await browser.get("/job/shop/from-form")).text();
    assert.match(jobPage, /action="\/ui\/cancel"/);
    assert.match(jobPage, /<iframe class="tail"[^>]* src="\/job\/shop\/from-form\/tail"/);
    await writeAt(service.paths.logFile(job), "line one\n<script>alert(1)</script> redis://:pw-log@127.0.0.1:1/0\n");
    const tail = await browser.get("/job/shop/from-form/tail");
    assert.match(tail.headers.get("content-security-policy")!, /frame-ancestors 'self'/);
    const tailHtml = await tail.text();
    assert.match(tailHtml, /line one\n&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.doesNotMatch(tailHtml, /<script>|pw-log/);
    assert.match(tailHtml, /http-equiv="refresh" content="1"/);
    // Bounded: of a long log, its last 200 lines.
    const long = Array.from({ length: 1000 }, (_, i) => `line ${i}`).join("\n") + "\n";
    await writeAt(service.paths.logFile(job), long);
    const shown = /<pre id="log">([^<]*)<\/pre>/.exec(await (await browser.get("/job/shop/from-form/tail")).text())![1];
    assert.deepEqual([shown.split("\n").length, shown.split("\n")[0], shown.split("\n").at(-1)], [
      200,
      "line 800",
      "line 999",
    ]);

    const cancel = await browser.act("cancel", { target: "shop/from-form", back: "list" });
    assert.equal(cancel.status, 303);
    assert.equal(cancel.headers.get("location"), "/");
    const cancelled = await service.runner.whenFinished("from-form");
    assert.equal(cancelled?.outcome, "cancelled");

    // Re-run: a new job with the old one's settings and arguments, checked again.
    await writeFile(gate, "");
    const rerun = await browser.act("rerun", { target: "shop/from-form" });
    assert.equal(rerun.status, 303);
    const newId = /^\/job\/shop\/([0-9a-f]{32})$/.exec(rerun.headers.get("location")!)![1];
    const again = service.runner.get(newId)!;
    assert.deepEqual([again.spider, again.settings, again.args], ["books", job.settings, job.args]);
    assert.equal((await service.runner.whenFinished(newId))?.outcome, "finished");
    const notFinished = await browser.act("rerun", { target: `news/${newId}` });
    assert.equal(notFinished.status, 400, "a job of another project is not found");

    // Schedules.
    const added = await browser.act("addschedule", {
      spider: "shop/plain",
      cron: "0 3 * * *",
      timezone: "UTC",
      schedule: "nightly",
      missed: "skip",
      overlap: "skip",
      settings: "max_items=5",
    });
    assert.equal(added.status, 303);
    assert.equal(added.headers.get("location"), "/#schedules");
    assert.deepEqual([service.scheduler.get("nightly")?.cron, service.scheduler.get("nightly")?.missed], [
      "0 3 * * *",
      "skip",
    ]);
    const badCron = await browser.act("addschedule", { spider: "shop/plain", cron: "every day", schedule: "second" });
    assert.equal(badCron.status, 400);
    assert.match(await badCron.text(), /value="every day"/, "the typed cron kept");
    for (const [action, paused] of [["pauseschedule", true], ["resumeschedule", false]] as const) {
      const response = await browser.act(action, { target: "shop/nightly" });
      assert.equal(response.status, 303, action);
      assert.equal(service.scheduler.get("nightly")?.paused, paused, action);
    }
    const list = await (await browser.get("/")).text();
    assert.match(list, /action="\/ui\/pauseschedule"/);
    assert.match(list, /action="\/ui\/rerun"/);
    const deleted = await browser.act("delschedule", { target: "shop/nightly" });
    assert.equal(deleted.status, 303);
    assert.equal(service.scheduler.get("nightly"), undefined);
  });
});

Deno.test("with a login, the buttons need it too; garbled targets and a foreign 'back' are refused or ignored", async () => {
  const auth = { username: "me", password: "pw-dashboard-9" };
  const basic = "Basic " + btoa("me:pw-dashboard-9");
  await withApp({ auth }, async ({ app, jobs }) => {
    jobs.schedule({ ...record({ id: "waiting", project: "shop", spider: "books" }) });
    const get = await app.request(`${ORIGIN}/`, { headers: { host: "127.0.0.1:6800", authorization: basic } });
    const cookie = get.headers.get("set-cookie")!.split(";")[0];
    const html = await get.text();
    assert.doesNotMatch(html, /pw-dashboard-9/);
    const token = new RegExp(`name="${TOKEN_FIELD}" value="([^"]+)"`).exec(html)![1];
    const post = (fields: Record<string, string>, login?: string) =>
      app.request(`${ORIGIN}/ui/cancel`, {
        method: "POST",
        headers: {
          host: "127.0.0.1:6800",
          origin: ORIGIN,
          "content-type": "application/x-www-form-urlencoded",
          cookie,
          ...(login ? { authorization: login } : {}),
        },
        body: new URLSearchParams({ [TOKEN_FIELD]: token, ...fields }).toString(),
      });
    assert.equal((await post({ target: "shop/waiting" })).status, 401, "no login");
    const wrongUser = "Basic " + btoa("someone:pw-dashboard-9");
    assert.equal((await post({ target: "shop/waiting" }, wrongUser)).status, 401);
    assert.equal(jobs.get("waiting")?.state, "pending");
    for (const target of ["", "waiting", "shop/", "/waiting", "news/waiting", "shop/../waiting"]) {
      const refused = await post({ target }, basic);
      assert.equal(refused.status, 400, target);
      assert.match(await refused.text(), /not found in project/);
    }
    assert.equal(jobs.get("waiting")?.state, "pending");
    const done = await post({ target: "shop/waiting", back: "https://evil.example/" }, basic);
    assert.equal(done.status, 303);
    assert.equal(done.headers.get("location"), "/job/shop/waiting", "an unknown 'back' goes to the job's page");
    assert.equal(jobs.get("waiting")?.outcome, "cancelled");
    for (const path of ["/", "/job/shop/waiting", "/new"]) {
      const csp = (await app.request(`${ORIGIN}${path}`, { headers: { authorization: basic, cookie } }))
        .headers.get("content-security-policy")!;
      assert.match(csp, /default-src 'none'/, path);
      assert.match(csp, /form-action 'self'/, path);
      assert.match(csp, /frame-ancestors 'none'/, path);
      assert.doesNotMatch(csp, /script-src/, path);
    }
  });
});

Deno.test("on an address others reach without a login (--insecure-no-auth) the forms are off: a rebound page could use them", async () => {
  await withApp({ loopback: false }, async ({ app, jobs }) => {
    jobs.schedule({ ...record({ id: "waiting", project: "shop", spider: "books" }) });
    // What a page that rebound evil.example to the service would see: its own name as Host, and no buttons.
    const headers = { host: "evil.example:6800" };
    const list = await app.request("http://evil.example:6800/", { headers });
    assert.equal(list.status, 200);
    const html = await list.text();
    assert.doesNotMatch(html, new RegExp(`name="${TOKEN_FIELD}"|<button|href="/new"`));
    assert.equal(list.headers.get("set-cookie"), null);
    const forms = await app.request("http://evil.example:6800/new", { headers });
    assert.equal(forms.status, 403);
    assert.match(await forms.text(), /forms are off.*--insecure-no-auth/s);
    const post = await app.request("http://evil.example:6800/ui/cancel", {
      method: "POST",
      headers: { ...headers, origin: "http://evil.example:6800", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ target: "shop/waiting", [TOKEN_FIELD]: "x".repeat(43) }).toString(),
    });
    assert.equal(post.status, 403);
    assert.match((await post.json()).message, /Origin/);
    assert.equal(jobs.get("waiting")?.state, "pending");
  });
});
