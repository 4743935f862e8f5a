/**
 * What is in the queue, seen from both sides: entries written there by someone else (garbage, callbacks a queued
 * request may not name, uploads) are dropped and counted while the crawl goes on, and what the crawl itself writes
 * there never includes its own http_auth login.
 */
import assert from "node:assert/strict";
import { BAD_ENTRIES_SHOWN } from "../../src/queue/bad_entries.ts";
import { hostList, listHost, pushRaw } from "../queue/_layout.ts";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startRedis } from "../helpers/redis.ts";
import { bookUrls, readItems, readStats, startCrawler, storedValues, waitUntil } from "./_crawl.ts";

Deno.test("garbage and forbidden callbacks pushed into the queue by hand are counted in queue_bad and the crawl goes on", async () => {
  const books = 60;
  const site = await startFixtureSite({ books });
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), "netweir-bad-"));
  try {
    const crawler = startCrawler({
      dir,
      name: "only",
      site,
      queue: redis.url,
      settings: ["min_delay=0.05", "autothrottle=false", "per_domain=2"],
    });
    await waitUntil("the crawl has written items", async () => (await readItems(crawler.items)).length >= 5);

    // Written the way redis-cli would, at a priority above the crawl's own so they are taken next.
    const target = (name: string) => `${site.url}links/${name}`;
    const request = (name: string, fields: Record<string, unknown>) =>
      JSON.stringify({ v: 1, url: target(name), ...fields });
    const bad = [
      "garbage",
      "{not json",
      JSON.stringify({ url: target("no-version") }),
      request("closed", { callback: "closed" }),
      request("constructor", { callback: "constructor" }),
      request("dunder", { callback: "__init__" }),
      request("proto", { errback: "__proto__" }),
      request("start", { callback: "start" }),
      request("call-step", { steps: [{ call: "closed" }] }),
    ];
    const upload = request("upload", { steps: [{ set_input_files: { selector: "#f", files: ["/etc/hostname"] } }] });
    await pushRaw(redis, "Shop", 100, "127.0.0.1", ...bad, upload);
    // A key that is not a list where a host's queue should be, written before the host is listed: the crawl is
    // leasing meanwhile, and written as a list first, then deleted and replaced, a lease between the delete and the
    // replacement would take the host out of its list and never come across the key (queue_bad one short).
    await redis.command("SET", hostList("Shop", 50, "127.0.0.1"), "not a list");
    await listHost(redis, "Shop", 50, "127.0.0.1");

    const result = await crawler.process.wait();
    assert.equal(result.code, 0, result.stderr);
    const items = await readItems(crawler.items);
    assert.deepEqual(items.map((item) => item.url).sort(), bookUrls(site, books).sort(), "the crawl went on");
    const stats = await readStats(crawler.stats);
    assert.equal(stats.queue_bad, bad.length + 1);
    assert.deepEqual(stats.dropped, { upload: 1 });
    assert.equal(site.requests.filter((request) => request.path.startsWith("/links/")).length, 0, "none fetched");
    // The first few one line each, then a count of the rest.
    assert.equal(result.stderr.match(/WARNING dropped from the queue/g)?.length, BAD_ENTRIES_SHOWN);
    const counted = [...result.stderr.matchAll(/WARNING dropped (\d+) more entries from the queue/g)];
    assert.equal(counted.reduce((sum, match) => sum + Number(match[1]), 0), bad.length + 1 - BAD_ENTRIES_SHOWN);
    assert.match(result.stderr, /WARNING dropped .*links\/upload: step 0: set_input_files needs browser_upload_dir/);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
    await site.close();
  }
});

Deno.test("the crawl's http_auth login never goes into Redis, while a request's own login does", async () => {
  const site = await startFixtureSite({ basicAuth: { user: "crawl-user", password: "crawl-secret" } });
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), "netweir-auth-"));
  try {
    const crawler = startCrawler({
      dir,
      name: "logins",
      site,
      queue: redis.url,
      spider: "Logins",
      settings: ["http_auth=127.0.0.1=crawl-user:crawl-secret"],
    });
    // Both slow pages are being fetched, so they are held in Redis right now.
    await waitUntil(
      "both slow pages are asked for",
      () => site.requests.filter((request) => request.path.startsWith("/slow")).length === 2,
    );
    const stored = await storedValues(redis, "netweir:{Logins}:*");
    const held = stored.filter((entry) => entry.startsWith("netweir:{Logins}:held:"));
    assert.equal(held.length, 1);
    assert.match(held[0], /login=own/);
    assert.match(held[0], /login=crawl/);
    assert.match(held[0], /own-secret/, "a request's own login travels with it");
    assert.deepEqual(stored.filter((entry) => entry.includes("crawl-secret")), [], "the crawl's login stays home");

    const result = await crawler.process.wait();
    assert.equal(result.code, 0, result.stderr);
    const sent = (query: string) =>
      site.requests.find((request) => request.path === `/slow?ms=3000&login=${query}`)?.headers.get("authorization");
    assert.equal(sent("own"), `Basic ${btoa("own-user:own-secret")}`);
    assert.equal(sent("crawl"), `Basic ${btoa("crawl-user:crawl-secret")}`, "http_auth was in use");
    const items = await readItems(crawler.items);
    assert.deepEqual(items.map((item) => item.status).sort(), [200, 200, 200]);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
    await site.close();
  }
});
