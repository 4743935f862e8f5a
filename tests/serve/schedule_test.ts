/** schedule.json's checks, without the HTTP layer: what a job is refused for, and what a good one becomes. */
import assert from "node:assert/strict";
import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { SettingsError } from "../../src/errors.ts";
import { confinePath } from "../../src/serve/confine.ts";
import { MAX_JOB_PAIRS, MAX_VALUE_LENGTH } from "../../src/serve/job_limits.ts";
import { servePaths } from "../../src/serve/paths.ts";
import { checkSchedule, ScheduleError } from "../../src/serve/schedule.ts";
import { fixtureRegistry, FIXTURES, withTempDir } from "./_setup.ts";

const registry = fixtureRegistry();

/** checkSchedule with these parameters and a temp --dir. */
function schedule(pairs: [string, string][], dir = "/nonexistent-netweir-serve-dir") {
  return checkSchedule(new URLSearchParams(pairs), { registry, paths: servePaths(dir) });
}

/** Asserts that scheduling is refused with a message matching `pattern`; returns the message. */
async function refused(pairs: [string, string][], pattern: RegExp, dir?: string): Promise<string> {
  const error = await schedule(pairs, dir).then(
    () => assert.fail(`scheduling ${JSON.stringify(pairs)} was not refused`),
    (error: unknown) => error,
  );
  assert.ok(error instanceof ScheduleError || error instanceof SettingsError, `unexpected ${error}`);
  assert.match(error.message, pattern);
  return error.message;
}

const BOOKS: [string, string][] = [["project", "shop"], ["spider", "books"]];

Deno.test("a good request becomes a job with a random 32-hex id, the spider's file and the project's directory", async () => {
  const job = await schedule(BOOKS);
  assert.match(job.id, /^[0-9a-f]{32}$/);
  assert.deepEqual({ ...job, id: "" }, {
    id: "",
    project: "shop",
    spider: "books",
    file: join(FIXTURES, "shop", "books.ts"),
    cwd: join(FIXTURES, "shop"),
    priority: 0,
    settings: [],
    args: [],
  });
  assert.notEqual((await schedule(BOOKS)).id, job.id);
});

Deno.test("project names ignore case and the job carries the project's own spelling", async () => {
  const job = await schedule([["project", "SHOP"], ["spider", "plain"]]);
  assert.equal(job.project, "shop");
  assert.equal(job.spider, "plain");
});

Deno.test("a jobid keeps its spelling, and one that is not a plain name is refused", async () => {
  assert.equal((await schedule([...BOOKS, ["jobid", "Nightly-Run_1.A"]])).id, "Nightly-Run_1.A");
  for (const bad of ["../etc", "a/b", "-x", ".hidden", "a b", "x".repeat(129)]) {
    await refused([...BOOKS, ["jobid", bad]], /^jobid .* is invalid: it must be letters, digits, \., _ and -/);
  }
});

Deno.test("priority is any number, and anything else is refused", async () => {
  assert.equal((await schedule([...BOOKS, ["priority", "2.5"]])).priority, 2.5);
  assert.equal((await schedule([...BOOKS, ["priority", "-3"]])).priority, -3);
  await refused([...BOOKS, ["priority", "soon"]], /^priority is invalid: "soon" is not a number$/);
  await refused([...BOOKS, ["priority", "Infinity"]], /^priority is invalid/);
});

Deno.test("a missing project or spider is refused in scrapyd's words", async () => {
  await refused([["spider", "books"]], /^'project' parameter is required$/);
  await refused([["project", "shop"]], /^'spider' parameter is required$/);
  await refused([["project", ""], ["spider", "books"]], /^'project' parameter is required$/);
});

Deno.test("an unknown project is refused", async () => {
  await refused([["project", "nope"], ["spider", "books"]], /^project 'nope' not found$/);
});

Deno.test("an unknown spider is refused naming the spiders there are and the files that failed to load", async () => {
  const message = await refused([["project", "shop"], ["spider", "music"]], /^spider 'music' not found/);
  assert.match(message, /its spiders: books, plain/);
  assert.match(message, /broken\.ts: cannot reach redis:\/\/:\*\*\*@127\.0\.0\.1:1\/0 while loading/);
  assert.doesNotMatch(message, /hunter2/);
});

Deno.test("a spider whose name cannot be a folder name is refused, naming the parameter", async () => {
  await refused(
    [["project", "news"], ["spider", "<img src=x onerror=alert(1)>"]],
    /^'spider' parameter is invalid: "<img src=x onerror=alert\(1\)>" must be letters, digits/,
  );
});

Deno.test("settings are passed on as given, and -s's checks apply: unknown, wrong type, out of range", async () => {
  const job = await schedule([...BOOKS, ["setting", "max_items=500"], ["setting", "concurrency=8"]]);
  assert.deepEqual(job.settings, ["max_items=500", "concurrency=8"]);
  await refused([...BOOKS, ["setting", "DOWNLOAD_DELAY=2"]], /^unknown setting DOWNLOAD_DELAY/);
  await refused([...BOOKS, ["setting", "max_items=lots"]], /^setting max_items must be a whole number/);
  await refused([...BOOKS, ["setting", "concurrency=0"]], /concurrency/);
  await refused([...BOOKS, ["setting", "concurrency"]], /setting must be KEY=VALUE/);
});

Deno.test("the crawl's start-of-crawl checks apply: min_delay above max_delay, an unknown profile", async () => {
  await refused(
    [...BOOKS, ["setting", "min_delay=9"], ["setting", "max_delay=1"]],
    /^min_delay \(9\) is above max_delay \(1\)$/,
  );
  await refused([...BOOKS, ["setting", "profile=reckless"]], /^unknown profile "reckless" \(known: .*gentle/);
});

Deno.test("settings are checked on top of the spider's own: its profile and its proxies count", async () => {
  assert.deepEqual((await schedule([...BOOKS, ["setting", "profile=gentle"]])).settings, ["profile=gentle"]);
  // books sets proxies itself, so rotating them is fine; plain has none.
  assert.deepEqual((await schedule([...BOOKS, ["setting", "proxy_rotation=per_request"]])).settings, [
    "proxy_rotation=per_request",
  ]);
  await refused(
    [["project", "shop"], ["spider", "plain"], ["setting", "proxy_rotation=per_request"]],
    /^proxy_rotation needs proxies$/,
  );
  await refused([["project", "shop"], ["spider", "plain"], ["setting", "profile=gentle"]], /^unknown profile "gentle"/);
});

Deno.test("every other parameter is a spider argument, first value of each", async () => {
  const job = await schedule([...BOOKS, ["category", "fiction"], ["max_price", "20"], ["category", "poetry"]]);
  assert.deepEqual(job.args, ["category=fiction", "max_price=20"]);
});

Deno.test("spider arguments that are not identifiers or would replace what a Spider has are refused", async () => {
  await refused([...BOOKS, ["_private", "x"]], /^spider argument "_private" must be an identifier/);
  await refused([...BOOKS, ["1st", "x"]], /^spider argument "1st" must be an identifier/);
  await refused(
    [...BOOKS, ["allowed_domains", "x"]],
    /^spider argument allowed_domains would replace the Spider attribute allowedDomains$/,
  );
  await refused([...BOOKS, ["parse", "x"]], /would replace the Spider method parse/);
  await refused([...BOOKS, ["settings", "x"]], /would replace the Spider attribute settings/);
});

Deno.test("a scrapyd client's _version is answered as a version that does not exist", async () => {
  await refused([...BOOKS, ["_version", "r23"]], /^version 'r23' not found \(netweir serve has no versions\)$/);
});

Deno.test("stats_file and browser_path cannot be set over HTTP", async () => {
  await refused([...BOOKS, ["setting", "stats_file=/tmp/x.json"]], /^setting stats_file can't be set over HTTP/);
  await refused([...BOOKS, ["setting", "browser_path=/bin/sh"]], /^setting browser_path can't be set over HTTP/);
});

Deno.test("a file setting that is absolute, climbs with .., or is a URL is refused, each saying which", async () => {
  for (const key of ["checkpoint", "cache", "deltafetch", "warc", "har"]) {
    await refused([...BOOKS, ["setting", `${key}=/tmp/books`]], new RegExp(`^${key} "/tmp/books" is an absolute path`));
    await refused(
      [...BOOKS, ["setting", `${key}=../other/books`]],
      new RegExp(`^${key} "\\.\\./other/books" contains ".."`),
    );
    await refused([...BOOKS, ["setting", `${key}=books/../../x`]], /contains "\.\."/);
  }
  for (const url of ["s3://bucket/books", "file:///etc/passwd", "file:books", "http://example.com/x"]) {
    await refused(
      [...BOOKS, ["setting", `checkpoint=${url}`]],
      /^checkpoint ".*" is a URL; over HTTP it must be a relative path/,
    );
  }
  await refused([...BOOKS, ["setting", "warc=C:\\archive.warc"]], /is an absolute path/);
  await refused([...BOOKS, ["setting", "har=."]], /names the data directory itself/);
});

Deno.test("a browser_init_script file is confined like a written path; a script's source passes as given", async () => {
  await refused(
    [...BOOKS, ["setting", "browser_init_script=/etc/hostname.js"]],
    /^browser_init_script "\/etc\/hostname\.js" is an absolute path/,
  );
  await refused([...BOOKS, ["setting", "browser_init_script=../x/init.js"]], /contains "\.\."/);
  await withTempDir(async (dir) => {
    const job = await schedule([...BOOKS, ["setting", "browser_init_script=scripts/init.js"]], dir);
    assert.deepEqual(job.settings, [
      `browser_init_script=${join(servePaths(dir).dataDir("shop"), "scripts", "init.js")}`,
    ]);
    const inline = await schedule([...BOOKS, ["setting", "browser_init_script=window.x = 1"]], dir);
    assert.deepEqual(inline.settings, ["browser_init_script=window.x = 1"]);
  });
});

Deno.test("a symlink in the data directory that points outside is refused, followed as far as it exists", async () => {
  await withTempDir(async (dir) => {
    const data = servePaths(dir).dataDir("shop");
    const outside = join(dir, "outside");
    await mkdir(data, { recursive: true });
    await mkdir(outside);
    await symlink(outside, join(data, "escape"));
    await symlink(join(dir, "nowhere", "yet"), join(data, "dangling"));
    await mkdir(join(data, "inside"));
    await symlink(join(data, "inside"), join(data, "alias"));
    const escape = /^checkpoint ".*" leads through a symlink to outside the project's data directory$/;
    await refused([...BOOKS, ["setting", "checkpoint=escape"]], escape, dir);
    await refused([...BOOKS, ["setting", "checkpoint=escape/deeper/books"]], escape, dir);
    await refused([...BOOKS, ["setting", "checkpoint=dangling"]], escape, dir);
    await refused([...BOOKS, ["setting", "checkpoint=dangling/more"]], escape, dir);
    // A link that stays inside passes confinement: the job keeps the path inside the data directory.
    const job = await schedule([...BOOKS, ["setting", "checkpoint=alias/books"]], dir);
    assert.deepEqual(job.settings, [`checkpoint=${join(data, "alias", "books")}`]);
  });
});

Deno.test("a relative file setting passes confinement and meets the crawl's own check", async () => {
  await withTempDir(async (dir) => {
    const data = servePaths(dir).dataDir("shop");
    for (const key of ["checkpoint", "cache", "deltafetch", "warc", "har"]) {
      const job = await schedule([...BOOKS, ["setting", `${key}=books/state`]], dir);
      assert.deepEqual(job.settings, [`${key}=${join(data, "books", "state")}`]);
    }
    // Before the data directory exists as well as after.
    await mkdir(data, { recursive: true });
    const job = await schedule([...BOOKS, ["setting", "warc=books.warc.gz"]], dir);
    assert.deepEqual(job.settings, [`warc=${join(data, "books.warc.gz")}`]);
  });
});

Deno.test("a confined path becomes the absolute path inside the project's data directory", async () => {
  await withTempDir(async (dir) => {
    const data = servePaths(dir).dataDir("shop");
    assert.equal(await confinePath("checkpoint", "books", data), join(data, "books"));
    assert.equal(await confinePath("deltafetch", "./seen/db", data), join(data, "seen", "db"));
    await mkdir(join(data, "seen"), { recursive: true });
    assert.equal(await confinePath("deltafetch", "seen/db", data), join(data, "seen", "db"));
  });
});

Deno.test("stats_interval above 5 s is refused over HTTP, and a spider's own longer one is capped at 5", async () => {
  await refused([...BOOKS, ["setting", "stats_interval=60"]], /stats_interval can't be above 5/);
  const fine = await schedule([...BOOKS, ["setting", "stats_interval=2"]]);
  assert.deepEqual(fine.settings, ["stats_interval=2"]);
  const slow = await schedule([["project", "shop"], ["spider", "books"], ["setting", "profile=slowstats"]]);
  assert.deepEqual(slow.settings, ["profile=slowstats", "stats_interval=5"]);
});

Deno.test("more than 256 spider arguments or settings, or a value or name past the limits, is refused in one line", async () => {
  const many = (count: number, pair: (index: number) => [string, string]) =>
    Array.from({ length: count }, (_, i) => pair(i));
  const args = (count: number) => many(count, (i) => [`a${i}`, "x"]);
  assert.equal((await schedule([...BOOKS, ...args(MAX_JOB_PAIRS)])).args.length, MAX_JOB_PAIRS);
  await refused([...BOOKS, ...args(MAX_JOB_PAIRS + 1)], /^too many spider arguments: a job can have at most 256$/);
  await refused(
    [...BOOKS, ...many(MAX_JOB_PAIRS + 1, () => ["setting", "max_items=5"])],
    /^too many settings: a job can have at most 256$/,
  );
  const longest = "a".repeat(MAX_VALUE_LENGTH);
  assert.deepEqual((await schedule([...BOOKS, ["category", longest]])).args, [`category=${longest}`]);
  await refused(
    [...BOOKS, ["category", `${longest}a`]],
    /^spider argument category is 65537 characters long; a value can have at most 65536$/,
  );
  await refused(
    [...BOOKS, ["setting", `user_agent=${longest}a`]],
    /^setting user_agent is 65537 characters long; a value can have at most 65536$/,
  );
  await refused(
    [...BOOKS, ["a".repeat(129), "x"]],
    /^spider argument a{40}\.\.\. has a name of 129 characters; the most is 128$/,
  );
});

Deno.test("the Scrapy setting names ScrapydWeb's Run Spider form sends are refused, each naming Netweir's setting", async () => {
  const netweir: Record<string, string> = {
    USER_AGENT: "user_agent",
    ROBOTSTXT_OBEY: "obey_robots_txt",
    CONCURRENT_REQUESTS: "concurrency",
    DOWNLOAD_DELAY: "min_delay",
    CLOSESPIDER_TIMEOUT: "max_time",
    CLOSESPIDER_ITEMCOUNT: "max_items",
    CLOSESPIDER_PAGECOUNT: "max_pages",
    CLOSESPIDER_ERRORCOUNT: "max_errors",
  };
  for (const [scrapy, ours] of Object.entries(netweir)) {
    const message = await refused([...BOOKS, ["setting", `${scrapy}=1`]], new RegExp(`${scrapy}.*Scrapy name`));
    assert.equal(message, `unknown setting ${scrapy}, a Scrapy name; in Netweir it is ${ours}`);
  }
});
