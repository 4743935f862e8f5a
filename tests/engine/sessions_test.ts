/**
 * Sessions (the `sessions` setting) in a crawl against a real site on 127.0.0.1 that logs in each visitor without its
 * cookie (tests/helpers/session_site.ts): each session its own cookies, user agent and headers, the requests a page
 * yields keeping its session, a blocked session retired and its request retried in another, `page.session.retire()`,
 * and sessions carried over a checkpoint. About 3 s in all.
 */
import assert from "node:assert/strict";
import { Crawl, type Page, Request, Settings, Spider } from "../../mod.ts";
import { createLogger } from "../../src/log.ts";
import { CheckpointFrontier } from "../../src/queue/checkpoint.ts";
import { resolveCrawlSettings } from "../../src/settings/check.ts";
import type { SettingsInit } from "../../src/settings/settings.ts";
import { startSessionSite } from "../helpers/session_site.ts";
import { startProxy } from "../helpers/proxy.ts";
import { crawlItems } from "./_crawl.ts";

/** Starts `chains` chains of pages (or the paths given); each page is an item saying who it was fetched as. */
class Visitor extends Spider {
  site = "";
  chains = 3;
  paths: string[] | undefined = undefined;
  /** Meta for the start requests. */
  startMeta: Record<string, unknown> = {};
  override async *start() {
    const paths = this.paths ?? Array.from({ length: this.chains }, (_, i) => `chain/c${i}/0`);
    for (const path of paths) yield new Request({ url: this.site + path, meta: { ...this.startMeta } });
  }
  override *parse(page: Page) {
    yield {
      path: new URL(page.url).pathname,
      sid: page.css("#sid").text(),
      ua: page.css("#ua").text(),
      session: page.session?.id,
      metaSession: page.meta.session,
    };
    const next = page.css("a.next").attr("href");
    if (next) yield page.follow(next);
  }
}

const QUIET: SettingsInit = { obeyRobotsTxt: false, concurrency: 4, perDomain: 4 };

Deno.test("each session logs in once and keeps its own cookie, user agent and chain of pages", async () => {
  const site = await startSessionSite({ chainLength: 4 });
  try {
    // Three chains in two sessions: taking sessions in turn would move a chain from one to the other at each page.
    const spider = Object.assign(new Visitor(), { site: site.url, chains: 3 });
    const { items, stats } = await crawlItems(spider, {
      ...QUIET,
      // One at a time: two first requests of a session at once would each log in (see docs/sessions.md).
      concurrency: 1,
      sessions: 2,
      sessionUserAgents: ["agent-a", "agent-b"],
    });
    assert.equal(items.length, 12);
    assert.equal(site.logins(), 2, "one login per session, never one per request");
    assert.equal(stats["sessions.used"], 2);
    const byChain = Map.groupBy(items, (item) => String(item.path).split("/")[2]);
    const sessions = new Set<unknown>();
    for (const [chain, pages] of byChain) {
      // A chain's pages were yielded one by the next: each kept the session (and so the login) of the first.
      assert.equal(new Set(pages.map((page) => page.session)).size, 1, `chain ${chain}: ${JSON.stringify(pages)}`);
      assert.equal(new Set(pages.map((page) => page.sid)).size, 1);
      assert.equal(new Set(pages.map((page) => page.ua)).size, 1);
      sessions.add(pages[0].session);
      for (const page of pages) assert.equal(page.metaSession, page.session, "meta session names it");
    }
    assert.equal(sessions.size, 2);
    assert.deepEqual(new Set(items.map((item) => item.ua)), new Set(["agent-a", "agent-b"]));
    // At the site: every request of a login came with that login's cookie and one user agent.
    for (const sid of new Set(site.hits.map((hit) => hit.sid))) {
      const hits = site.hits.filter((hit) => hit.sid === sid);
      assert.equal(hits.filter((hit) => hit.fresh).length, 1);
      assert.equal(new Set(hits.map((hit) => hit.userAgent)).size, 1);
    }
  } finally {
    await site.close();
  }
});

Deno.test("without sessions the crawl has one cookie jar: one login for every request", async () => {
  const site = await startSessionSite({ chainLength: 3 });
  try {
    const spider = Object.assign(new Visitor(), { site: site.url, chains: 1 });
    const { items, stats } = await crawlItems(spider, QUIET);
    assert.equal(items.length, 3);
    assert.equal(site.logins(), 1);
    assert.equal(items[0].session, undefined);
    assert.equal(stats["sessions.used"], undefined);
  } finally {
    await site.close();
  }
});

Deno.test("meta session chooses a session by name, and the name is the page's session", async () => {
  const site = await startSessionSite({ chainLength: 2 });
  try {
    const spider = Object.assign(new Visitor(), { site: site.url, chains: 1, startMeta: { session: "alice" } });
    const { items } = await crawlItems(spider, { ...QUIET, sessions: 2 });
    assert.deepEqual(items.map((item) => item.session), ["alice", "alice"]);
  } finally {
    await site.close();
  }
});

Deno.test("a session the site blocks is retired and its request retried in another session, counted", async () => {
  // Each login is served 3 pages, then answered with a CAPTCHA: 12 pages need at least 4 logins.
  const site = await startSessionSite({ blockAfter: 3 });
  try {
    const paths = Array.from({ length: 12 }, (_, i) => `page/${i}`);
    const spider = Object.assign(new Visitor(), { site: site.url, paths });
    const { items, stats } = await crawlItems(spider, { ...QUIET, concurrency: 1, sessions: 2, retries: 10 });
    assert.equal(items.length, 12, "every page, in the end");
    const blocked = site.hits.filter((hit) => hit.blocked).length;
    assert.ok(blocked > 0);
    assert.equal(stats.blocked, blocked);
    assert.equal(stats["sessions.retired"], blocked, "one request at a time: each block retires its session");
    assert.equal(stats["sessions.retired_blocked"], blocked);
    assert.equal(stats.retries, blocked);
    assert.equal(stats["sessions.used"], site.logins());
    assert.ok(site.logins() >= 4);
    // No login was served past its limit, and no item came from a blocked page.
    for (const sid of new Set(items.map((item) => item.sid))) {
      assert.ok(items.filter((item) => item.sid === sid).length <= 3, `${sid} served more than 3`);
    }
    assert.equal(stats.errors ?? 0, 0);
  } finally {
    await site.close();
  }
});

Deno.test("a block with no retries left goes to the errback as before, the session still retired", async () => {
  const site = await startSessionSite({ blockAfter: 1 });
  try {
    const paths = ["page/1", "page/2"];
    const spider = Object.assign(new Visitor(), { site: site.url, paths, startMeta: { session: "s1" } });
    const { items, stats } = await crawlItems(spider, { ...QUIET, concurrency: 1, sessions: 1, retries: 0 });
    assert.equal(items.length, 1);
    assert.equal(stats["sessions.retired_blocked"], 1);
    assert.equal(stats.errors_blocked, 1);
  } finally {
    await site.close();
  }
});

Deno.test("with proxies each session goes through its own: a chain of pages never changes proxy", async () => {
  const site = await startSessionSite({ chainLength: 3 });
  const proxies = [await startProxy(), await startProxy()];
  try {
    // Three chains in two sessions: a proxy per request, in turn, would move every chain from one proxy to the other.
    const spider = Object.assign(new Visitor(), { site: site.url, chains: 3 });
    const { items } = await crawlItems(spider, {
      ...QUIET,
      concurrency: 1,
      sessions: 2,
      proxies: proxies.map((proxy) => proxy.url),
    });
    assert.equal(items.length, 9);
    const through = (chain: string) =>
      proxies.flatMap((proxy, i) => proxy.requests.some((url) => url.includes(`/chain/${chain}/`)) ? [i] : []);
    assert.deepEqual(through("c0"), [0], "chain c0 through the first session's proxy alone");
    assert.deepEqual(through("c1"), [1], "chain c1 through the second's");
    assert.deepEqual(through("c2"), [0], "chain c2 in the first session again");
  } finally {
    for (const proxy of proxies) await proxy.close();
    await site.close();
  }
});

Deno.test("failures raise a session's error score, and at session_max_error_score it is retired", async () => {
  const site = await startSessionSite();
  try {
    const spider = Object.assign(new Visitor(), { site: site.url, paths: ["down/1"] });
    const { stats } = await crawlItems(spider, {
      ...QUIET,
      sessions: 1,
      sessionMaxErrorScore: 2,
      retries: 3,
      retryBackoff: 0.01,
    });
    // Four 503s: the first two retire the first session, the next two the second.
    const sids = site.hits.filter((hit) => hit.path === "/down/1").map((hit) => hit.sid);
    assert.deepEqual(sids, ["u1", "u1", "u2", "u2"]);
    assert.equal(stats["sessions.retired_errors"], 2);
    assert.equal(stats["sessions.used"], 2);
  } finally {
    await site.close();
  }
});

/** Retires its session on every page whose path ends in /1: the pages it yields go on in a new session. */
class Retirer extends Visitor {
  override *parse(page: Page) {
    if (page.url.endsWith("/1")) page.session?.retire();
    yield* super.parse(page);
  }
}

Deno.test("page.session.retire() retires the session: the pages after it log in afresh in another", async () => {
  const site = await startSessionSite({ chainLength: 4 });
  try {
    const spider = Object.assign(new Retirer(), { site: site.url, chains: 1 });
    const { items, stats } = await crawlItems(spider, { ...QUIET, sessions: 1 });
    assert.deepEqual(items.map((item) => item.path), ["/chain/c0/0", "/chain/c0/1", "/chain/c0/2", "/chain/c0/3"]);
    assert.equal(items[0].sid, items[1].sid);
    assert.notEqual(items[2].sid, items[1].sid, "a new login after the retirement");
    assert.equal(items[2].sid, items[3].sid);
    assert.notEqual(items[2].session, items[1].session);
    assert.equal(stats["sessions.retired"], 1);
    assert.equal(stats["sessions.retired_callback"], 1);
    assert.equal(stats["sessions.used"], 2);
  } finally {
    await site.close();
  }
});

/** Logs in with a token header it sets on its session, and checks the site got it on the next page. */
class TokenSetter extends Visitor {
  override *parse(page: Page) {
    page.session?.setHeader("x-token", `token-of-${page.session.id}`);
    yield* super.parse(page);
  }
}

Deno.test("a header a callback sets on its session goes with the session's later requests only", async () => {
  const site = await startSessionSite({ chainLength: 3 });
  try {
    const spider = Object.assign(new TokenSetter(), { site: site.url, chains: 2 });
    await crawlItems(spider, { ...QUIET, sessions: 2 });
    const tokens = new Map<string, Set<string>>();
    for (const hit of site.hits.filter((hit) => !hit.fresh)) {
      tokens.set(hit.sid, (tokens.get(hit.sid) ?? new Set()).add(hit.token));
    }
    assert.equal(tokens.size, 2);
    const seen = [...tokens.values()].map((set) => [...set]);
    for (const one of seen) assert.equal(one.length, 1, JSON.stringify(seen));
    assert.notEqual(seen[0][0], seen[1][0]);
    assert.ok(seen.every(([token]) => token.startsWith("token-of-s")));
  } finally {
    await site.close();
  }
});

function crawlOn(frontier: CheckpointFrontier, spider: Spider, init: SettingsInit): Crawl {
  const settings = resolveCrawlSettings({
    overrides: new Settings({ autothrottle: false, progress: false, ...QUIET, ...init }),
  });
  return new Crawl(spider, { settings, frontier, log: createLogger("error") });
}

Deno.test("a checkpoint keeps the sessions: the crawl resumed sends the same cookies and logs in no more", async () => {
  const site = await startSessionSite({ chainLength: 6 });
  const dir = await Deno.makeTempDir({ prefix: "netweir-sessions-checkpoint-" });
  const open = () => CheckpointFrontier.open({ dir, spider: new Visitor(), log: createLogger("error") });
  try {
    const spider = () => Object.assign(new Visitor(), { site: site.url, chains: 2 });
    // First run: stopped by max_pages part-way through both chains.
    await crawlOn(await open(), spider(), { sessions: 2, maxPages: 4, concurrency: 1 }).run();
    assert.equal(site.logins(), 2);
    const firstRun = site.hits.length;
    const stats = await crawlOn(await open(), spider(), { sessions: 2, maxPages: null }).run();
    const resumed = site.hits.slice(firstRun);
    assert.equal(resumed.length, 12 - 4, "the rest of both chains");
    assert.equal(site.logins(), 2, "no new login: the sessions came back with their cookies");
    assert.ok(resumed.every((hit) => !hit.fresh));
    assert.equal(stats["sessions.used"], 2, "counted once, over both runs");
  } finally {
    await site.close();
    await Deno.remove(dir, { recursive: true });
  }
});
