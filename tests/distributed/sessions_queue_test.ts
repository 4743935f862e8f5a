/**
 * Sessions with a shared Redis queue are per process: a request carries its session's name through the queue, and
 * the process that takes it fetches it in a session of its own by that name, with its own login. Two processes, a
 * real redis-server, the session site on 127.0.0.1. About 10 s.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FixtureSite } from "../helpers/fixture_site.ts";
import { startRedis } from "../helpers/redis.ts";
import { startSessionSite } from "../helpers/session_site.ts";
import { readItems, readStats, startCrawler } from "./_crawl.ts";

Deno.test("with a shared queue each process has its own sessions: a name is one login within a process", async () => {
  const site = await startSessionSite({ chainLength: 5 });
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), "netweir-sessions-queue-"));
  try {
    const crawlers = ["a", "b"].map((name) =>
      startCrawler({
        dir,
        name,
        site: { url: site.url } as FixtureSite,
        queue: redis.url,
        spider: "SessionChains",
        // One request at a time in each process: a new session's first two requests at once would each log in.
        settings: ["sessions=2", "concurrency=1", "obey_robots_txt=false", "autothrottle=false", "queue_idle=2"],
        args: ["-a", "chains=4"],
      })
    );
    const logins = new Map<string, string>();
    const chainSessions = new Map<string, Set<unknown>>();
    let items = 0;
    for (const crawler of crawlers) {
      const result = await crawler.process.wait();
      assert.equal(result.code, 0, result.stderr);
      for (const item of await readItems(crawler.items)) {
        items++;
        // Within one process a session's name is one login, whichever process queued the request.
        const key = `${crawler.name} ${item.session}`;
        assert.equal(logins.get(key) ?? item.sid, item.sid, `${key} fetched as two logins`);
        logins.set(key, String(item.sid));
        // Every page of a chain names the session of the first: the name travelled through the queue with each link.
        const chain = String(item.path).split("/")[2];
        chainSessions.set(chain, (chainSessions.get(chain) ?? new Set()).add(item.session));
      }
      const stats = await readStats(crawler.stats);
      assert.ok(Number(stats["sessions.used"] ?? 0) <= 2, `${crawler.name} used ${stats["sessions.used"]}`);
    }
    assert.equal(items, 20);
    for (const [chain, names] of chainSessions) assert.equal(names.size, 1, `chain ${chain}: ${[...names]}`);
    assert.equal(site.logins(), logins.size, "one login per process and session");
    assert.ok(site.logins() <= 4);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
    await site.close();
  }
});
