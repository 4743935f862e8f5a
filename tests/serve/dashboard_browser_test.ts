/**
 * The dashboard driven in real headless Chromium against a real `netweir serve` process with a login and a fixture
 * site on 127.0.0.1 (the browser gives the login when asked, as a person would): a job scheduled from the form, watched running in the live log tail, cancelled; a finished job re-run
 * from its Re-run button; a schedule added, paused, resumed and deleted. Every click is a form the browser posts
 * itself (with its Origin and the session's token), so this is also the proof that the refusals let the service's
 * own page through. The page runs no script and loads nothing from elsewhere (no console problem, no stray request).
 * Screenshots go into a temporary folder the test prints (NETWEIR_SCREENSHOTS when set, kept). About 40 s.
 */
import assert from "node:assert/strict";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "puppeteer-core";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { bodyText, screenshot, watchedPage, withChromium } from "./_chromium.ts";
import { poll, type ServeProcess, startServe, stopQuietly } from "./_e2e_service.ts";

const LOGIN = { username: "me", password: "pw-dash-browser-7" };
import { withTempDir } from "./_setup.ts";

const BOOKS = 12;

/** The text of the live tail framed in a job page, once it matches `pattern` (the frame reloads every second). */
function tailText(page: Page, pattern: RegExp): Promise<string> {
  return poll(`the log tail to show ${pattern}`, async () => {
    const frame = page.frames().find((one) => one.url().endsWith("/tail"));
    const text = await frame?.$eval("#log", (pre) => pre.textContent ?? "").catch(() => undefined);
    return text !== undefined && pattern.test(text) ? text : undefined;
  });
}

/** Clicks what `selector` finds and waits for the page the form or link leads to. */
async function clickThrough(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click(selector)]);
}

/**
 * Clicks the button or link `selector` on the page at `url` until `done` says its effect is there. The list and the job
 * pages reload themselves every 5 s, and on a loaded machine a click can meet that reload: the click is lost, or the
 * reload's navigation is taken for the form's. So the effect is read from the service, not from the page, and the
 * page is opened again and clicked again (only while the effect is not there) when it did not come.
 */
async function clickUntil(page: Page, url: string, selector: string, done: () => Promise<boolean>): Promise<void> {
  for (let attempt = 1;; attempt++) {
    await page.goto(url, { waitUntil: "load" });
    if (await done()) return;
    await clickThrough(page, selector).catch((error) => {
      if (!/context was destroyed|detached|navigat/i.test(String(error))) throw error;
    });
    const came = await poll("the click's effect", async () => (await done()) || undefined, 15_000).catch(() => false);
    if (came) return;
    if (attempt === 4) throw new Error(`clicking ${selector} on ${url} had no effect after ${attempt} tries`);
  }
}

/** The text of the first row of `table` on the page at `url`, once it matches `pattern`. */
function rowText(page: Page, url: string, table: string, pattern: RegExp): Promise<string> {
  return poll(`${table}'s row to say ${pattern}`, async () => {
    await page.goto(url, { waitUntil: "load" });
    const text = await page.$eval(`${table} tbody tr`, (tr) => tr.textContent ?? "");
    return pattern.test(text) ? text : undefined;
  });
}

/** Reloads the page until its text matches `pattern` (the job pages reload themselves every 5 s; this is faster). */
function reloadUntil(page: Page, pattern: RegExp): Promise<string> {
  return poll(`the page to say ${pattern}`, async () => {
    await page.reload({ waitUntil: "load" });
    const text = await bodyText(page);
    return pattern.test(text) ? text : undefined;
  });
}

Deno.test("the dashboard in Chromium: schedule from the form, watch the tail, cancel, re-run, and a schedule's buttons", async () => {
  const shots = Deno.env.get("NETWEIR_SCREENSHOTS") ?? await mkdtemp(join(tmpdir(), "netweir-dashboard-shots-"));
  console.log(`screenshots in ${shots}`);
  const site = await startFixtureSite({ books: BOOKS });
  let service: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      service = await startServe(join(dir, "serve"), ["--max-jobs", "2"], {
        env: { NETWEIR_SERVE_USERNAME: LOGIN.username, NETWEIR_SERVE_PASSWORD: LOGIN.password },
      });
      const origin = service.url.replace(/\/$/, "");
      const authorization = "Basic " + btoa(`${LOGIN.username}:${LOGIN.password}`);
      const api = async (path: string) =>
        await (await fetch(`${origin}/${path}`, { headers: { authorization } })).json();
      const schedules = async () => (await api("listschedules.json")).schedules as { paused: boolean }[];
      const job = async (id: string) => {
        const lists = await api("listjobs.json") as Record<string, { id: string; outcome: string | null }[]>;
        return [...lists.pending, ...lists.running, ...lists.finished].find((one) => one.id === id);
      };
      const jobIds = async () => {
        const lists = await api("listjobs.json") as Record<string, { id: string }[]>;
        return [...lists.pending, ...lists.running, ...lists.finished].map((one) => one.id);
      };
      const anonymous = await fetch(`${origin}/`);
      await anonymous.body?.cancel();
      assert.equal(anonymous.status, 401, "the service asks for its login");
      const gate = join(dir, "gate");
      await withChromium(async (browser) => {
        const { page, problems, strayRequests } = await watchedPage(browser, origin);
        await page.authenticate(LOGIN);
        // Taken again if the page reloads itself under it.
        const shot = (name: string) => poll(`screenshot ${name}`, () => screenshot(page, shots, name));
        // A reload of the page (ours, or its own every 5 s) cancels the tail frame's reload if one is under way:
        // Chromium reports that as a failed request (net::ERR_ABORTED). Those, and only those, are not problems.
        const aborted = new Set<string>();
        page.on("requestfailed", (request) => {
          if (request.failure()?.errorText === "net::ERR_ABORTED" && request.url().endsWith("/tail")) {
            aborted.add(`failed: ${request.url()}`);
          }
        });
        await clickUntil(
          page,
          `${origin}/`,
          'a[href="/new"]',
          () => Promise.resolve(new URL(page.url()).pathname === "/new"),
        );

        // Schedule a job from the form: a spider from the list, settings and arguments a line each.
        await page.select("#run-form select[name=spider]", "shop/books");
        await page.type("#run-form textarea[name=settings]", "log_interval=1\nstats_interval=1");
        await page.type("#run-form textarea[name=args]", `site=${site.url}\ngate=${gate}\ncategory=poetry`);
        await page.type("#run-form input[name=jobid]", "watched");
        await shot("1-form");
        await clickThrough(page, "#run-form button[type=submit]");
        assert.equal(new URL(page.url()).pathname, "/job/shop/watched");

        // Watch it run: the tail shows its log lines as they are written.
        const tail = await tailText(page, /waiting for .*gate before finishing/);
        assert.match(tail, /job watched of project shop/);
        await tailText(page, /Crawled \d+ pages/);
        await shot("2-job-running");

        // Cancel it from its page.
        await clickUntil(
          page,
          page.url(),
          "button.cancel",
          async () => (await job("watched"))?.outcome === "cancelled",
        );
        const cancelled = await reloadUntil(page, /Job watched cancelled/);
        assert.match(cancelled, /category\s+poetry/);
        await shot("3-job-cancelled");

        // A job that finishes, then re-run from the list's Re-run button, with its settings and arguments.
        await writeFile(gate, "");
        await page.goto(`${origin}/new`, { waitUntil: "load" });
        await page.select("#run-form select[name=spider]", "shop/books");
        await page.type("#run-form textarea[name=settings]", "max_items=5");
        await page.type("#run-form textarea[name=args]", `site=${site.url}\ncategory=travel`);
        await page.type("#run-form input[name=jobid]", "first");
        await clickThrough(page, "#run-form button[type=submit]");
        await reloadUntil(page, /Job first finished/);
        const row = `table.list-finished tr:has(a[href="/job/shop/first"])`;
        const before = await jobIds();
        const added = async () => (await jobIds()).filter((id) => !before.includes(id));
        await clickUntil(page, `${origin}/`, `${row} button.rerun`, async () => (await added()).length > 0);
        const [rerun] = await added();
        assert.match(rerun, /^[0-9a-f]{32}$/);
        await page.goto(`${origin}/job/shop/${rerun}`, { waitUntil: "load" });
        const again = await reloadUntil(page, /Job [0-9a-f]{32} finished/);
        assert.match(again, /max_items\s+5/);
        assert.match(again, /category\s+travel/);
        assert.match(again, /items\s+5/);
        await shot("4-rerun-finished");

        // A schedule: added from the form, then paused, resumed and deleted from its row.
        await page.goto(`${origin}/new`, { waitUntil: "load" });
        await page.type("#schedule-form input[name=cron]", "0 3 * * *");
        await page.type("#schedule-form input[name=timezone]", "UTC");
        await page.type("#schedule-form input[name=schedule]", "nightly");
        await page.select("#schedule-form select[name=spider]", "shop/books");
        await page.type("#schedule-form textarea[name=args]", `site=${site.url}`);
        await clickThrough(page, "#schedule-form button[type=submit]");
        assert.equal(new URL(page.url()).hash, "#schedules");
        const list = `${origin}/`;
        await rowText(page, list, "table.list-schedules", /nightly\s*shop\s*books\s*0 3 \* \* \* UTC/);
        await shot("5-schedule-added");
        const paused = async () => (await schedules())[0]?.paused === true;
        await clickUntil(page, list, "table.list-schedules button.pauseschedule", paused);
        await rowText(page, list, "table.list-schedules", /paused.*Resume/);
        await shot("6-schedule-paused");
        await clickUntil(page, list, "table.list-schedules button.resumeschedule", async () => !(await paused()));
        await rowText(page, list, "table.list-schedules", /Pause/);
        const none = async () => (await schedules()).length === 0;
        await clickUntil(page, list, "table.list-schedules button.delschedule", none);
        await rowText(page, list, "table.list-schedules", /none/);
        for (const path of ["", "job/shop/watched", "new"]) {
          assert.doesNotMatch(
            await (await fetch(`${origin}/${path}`, { headers: { authorization } })).text(),
            /pw-dash/,
          );
        }

        assert.deepEqual(
          problems.filter((problem) => !aborted.has(problem)),
          [],
          "no CSP violation or other console problem",
        );
        assert.deepEqual(strayRequests, []);
      });
    });
  } finally {
    await stopQuietly(service);
    await site.close();
  }
});
