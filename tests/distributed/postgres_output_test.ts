import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startRedis } from "../helpers/redis.ts";
import { startPostgres } from "../output/_postgres.ts";
import { bookUrls, readItems, readStats, startCrawler, waitUntil } from "./_crawl.ts";

const BOOKS = 200;

Deno.test("a process killed while items go to a PostgreSQL table loses none, and the table holds each book once", async () => {
  const site = await startFixtureSite({ books: BOOKS });
  const redis = await startRedis();
  const pg = await startPostgres();
  const dir = await mkdtemp(join(tmpdir(), "netweir-pg-crawl-"));
  try {
    const common = { dir, site, queue: redis.url, args: ["-o", `${pg.url}?table=books&key=url`] };
    const pace = (delay: number) => ["queue_lease=3", `min_delay=${delay}`, "autothrottle=false", "per_domain=2"];
    const victim = startCrawler({ ...common, name: "victim", settings: pace(0.4) });
    await waitUntil("the victim has written 3 items", async () => (await readItems(victim.items)).length >= 3);
    const survivor = startCrawler({ ...common, name: "survivor", settings: pace(0.05) });
    await waitUntil("the survivor is at work", async () => (await readItems(survivor.items)).length >= 1);
    await victim.process.kill("SIGKILL");
    assert.equal((await victim.process.wait()).signal, "SIGKILL");
    const result = await survivor.process.wait();
    assert.equal(result.code, 0, result.stderr);

    const keys = await pg.query("SELECT key FROM books");
    assert.equal(keys.length, new Set(keys).size);
    assert.deepEqual(bookUrls(site, BOOKS).filter((url) => !keys.includes(url)), [], "every book is in the table");
    assert.equal(keys.length, BOOKS, "and nothing else");
    assert.ok(Number((await readStats(survivor.stats)).leases_reclaimed) > 0, "the survivor took requests back");
  } finally {
    await rm(dir, { recursive: true, force: true });
    await pg.stop();
    await redis.stop();
    await site.close();
  }
});
