/**
 * The crawl-wide stats of `netweir queue status`: two real crawl processes of the fixture shop on a real redis-server,
 * their heartbeats reporting their totals, read back by the command as a user runs it.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import type { LiveProcess } from "../../src/queue/frontier.ts";
import { Queue } from "../../src/queue/queue.ts";
import { runCli } from "../helpers/cli.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startRedis } from "../helpers/redis.ts";
import { type Crawler, readItems, readStats, shopFetches, startCrawler, waitUntil } from "./_crawl.ts";

const BOOKS = 150;
/** URLs that answer 503 every time: with retries=0, each is one error of whichever process takes it. */
const FAILING = 3;

/** A live process's entry for `crawler`, found by its pid. */
function entryOf(live: readonly LiveProcess[], crawler: Crawler): LiveProcess | undefined {
  return live.find((one) => one.pid === crawler.process.pid);
}

Deno.test("queue status adds the crawl's totals, which are the sum of what its live processes did, and a line for each", async () => {
  const site = await startFixtureSite({ books: BOOKS });
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), "netweir-crawl-stats-"));
  const queue = new Queue(redis.url, "Shop");
  try {
    const failing = Array.from({ length: FAILING }, (_, i) => `${site.origin}/flaky/stats-${i}?fail=1000&code=503`);
    assert.deepEqual(await queue.push(failing), { pushed: FAILING, skipped: 0 });
    // Paced so that both take part; beats every second (a third of queue_lease); idle long enough to be looked at.
    const settings = ["queue_lease=3", "queue_idle=15", "per_domain=1", "min_delay=0.01", "autothrottle=false"];
    const common = { dir, site, queue: redis.url, settings: [...settings, "retries=0"] };
    const crawlers = [startCrawler({ ...common, name: "one" }), startCrawler({ ...common, name: "two" })];
    const shopPages = () => [...shopFetches(site).values()].reduce((sum, n) => sum + n, 0);

    // Once the crawl is idle and both have beaten since, their reports are final: what each wrote, all pages fetched.
    const status = await waitUntil("the crawl is idle and both processes reported all they did", async () => {
      const now = await queue.status({ live: true });
      const done = now.waiting === 0 && now.held === 0 && now.live?.length === 2 &&
        now.crawl?.pages === shopPages() + FAILING;
      return done && now;
    }, 60_000);
    assert.equal(status.processes, 2);
    assert.equal(status.crawl?.errors, FAILING, "each failing URL is one error");
    assert.equal(status.crawl?.items, BOOKS, "one item a book");
    for (const crawler of crawlers) {
      const entry = entryOf(status.live!, crawler);
      assert.ok(entry, `process ${crawler.name} (pid ${crawler.process.pid}) is listed`);
      assert.equal(entry.host, hostname());
      assert.ok(entry.heartbeatAgeSeconds < 3, `heard from within its lease: ${entry.heartbeatAgeSeconds} s`);
      assert.ok(entry.totals!.pages > 0, `${crawler.name} took part`);
    }

    // What the command prints while they wait: the spec's five lines as they were, then the totals and one line each.
    const text = await runCli(["queue", "status", redis.url, "Shop"]);
    assert.equal(text.code, 0, text.stderr);
    const lines = text.stdout.trimEnd().split("\n");
    assert.deepEqual(lines.slice(0, 5).map((line) => line.split(":")[0]), [
      "waiting",
      "held",
      "processes",
      "seen",
      "queued",
    ]);
    assert.equal(lines[2], "processes: 2");
    assert.deepEqual(lines.slice(5, 8), [
      `pages: ${status.crawl!.pages}`,
      `items: ${BOOKS}`,
      `errors: ${FAILING}`,
    ]);
    assert.match(lines[8], /^pages\/s: \d+\.\d \(last minute\)$/);
    for (const crawler of crawlers) {
      const line = lines.find((one) => one.startsWith(`process ${hostname()} pid ${crawler.process.pid}: `));
      assert.match(
        line ?? `no line for ${crawler.name}: ${text.stdout}`,
        /: pages \d+, items \d+, errors \d+, \d+\.\d pages\/s, last heartbeat \d+\.\d s ago$/,
      );
    }
    assert.equal(lines.length, 11, text.stdout);

    const json = await runCli(["queue", "status", redis.url, "Shop", "--json"]);
    assert.equal(json.code, 0, json.stderr);
    const parsed = JSON.parse(json.stdout);
    assert.deepEqual(Object.keys(parsed), ["waiting", "held", "processes", "seen", "queued", "crawl", "live"]);
    assert.deepEqual(
      { ...parsed.crawl, pages_per_second: undefined },
      { pages: status.crawl!.pages, items: BOOKS, errors: FAILING, pages_per_second: undefined },
    );
    assert.equal(typeof parsed.crawl.pages_per_second, "number");
    assert.equal(parsed.live.length, 2);
    for (const one of parsed.live) {
      assert.deepEqual(Object.keys(one), [
        "id",
        "host",
        "pid",
        "last_heartbeat",
        "heartbeat_age_seconds",
        "pages",
        "items",
        "errors",
        "pages_per_second",
      ]);
      assert.ok(!Number.isNaN(Date.parse(one.last_heartbeat)), one.last_heartbeat);
    }

    // Each process's entry is what its own stats file says it did, and the totals are their sum.
    for (const crawler of crawlers) {
      const result = await crawler.process.wait();
      assert.equal(result.code, 0, result.stderr);
    }
    const files = await Promise.all(crawlers.map((crawler) => readStats(crawler.stats)));
    for (const [i, crawler] of crawlers.entries()) {
      const { pages, items, errors } = entryOf(status.live!, crawler)!.totals!;
      assert.deepEqual({ pages, items, errors }, {
        pages: files[i].pages,
        items: files[i].items,
        errors: files[i].errors,
      }, `${crawler.name}'s entry is its stats file's`);
      assert.equal(items, (await readItems(crawler.items)).length);
    }
    const sum = (key: string) => files.reduce((total, one) => total + Number(one[key]), 0);
    assert.deepEqual(
      { pages: status.crawl!.pages, items: status.crawl!.items, errors: status.crawl!.errors },
      { pages: sum("pages"), items: sum("items"), errors: sum("errors") },
    );
    // Leaving, each took its report with it.
    assert.equal(await redis.command("HLEN", "netweir:{Shop}:stats"), 0);
  } finally {
    await queue.close();
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
    await site.close();
  }
});

Deno.test("a process killed with SIGKILL drops out of queue status once its lease has run out", async () => {
  const site = await startFixtureSite({ books: 400 });
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), "netweir-crawl-stats-kill-"));
  const queue = new Queue(redis.url, "Shop");
  try {
    // Slow enough (5 pages a second each) that neither gets near the end of the shop while the test runs.
    const settings = ["queue_lease=3", "queue_idle=30", "per_domain=1", "min_delay=0.2", "autothrottle=false"];
    const common = { dir, site, queue: redis.url, settings };
    const victim = startCrawler({ ...common, name: "victim" });
    const survivor = startCrawler({ ...common, name: "survivor" });

    await waitUntil("both processes report pages", async () => {
      const live = (await queue.status({ live: true })).live ?? [];
      return [victim, survivor].every((crawler) => (entryOf(live, crawler)?.totals?.pages ?? 0) > 0);
    }, 60_000);
    await victim.process.kill("SIGKILL");
    assert.equal((await victim.process.wait()).signal, "SIGKILL");

    const after = await waitUntil("the victim is no longer live", async () => {
      const now = await queue.status({ live: true });
      return now.live !== undefined && entryOf(now.live, victim) === undefined && now;
    }, 30_000);
    assert.equal(after.processes, 1);
    assert.equal(after.live?.length, 1);
    const entry = entryOf(after.live!, survivor);
    assert.ok(entry, "the survivor is still listed");
    const { pages, items, errors } = entry.totals!;
    assert.deepEqual(
      { pages: after.crawl!.pages, items: after.crawl!.items, errors: after.crawl!.errors },
      { pages, items, errors },
      "the totals are the survivor's alone",
    );
    // The survivor's next heartbeat takes back the victim's requests, and its report with them.
    await waitUntil("the victim's report is removed", async () => {
      const fields = await redis.command("HKEYS", "netweir:{Shop}:stats") as string[];
      return fields.length === 1 && fields[0] === entry.id;
    }, 30_000);

    await survivor.process.kill("SIGTERM");
    await survivor.process.wait();
  } finally {
    await queue.close();
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
    await site.close();
  }
});
