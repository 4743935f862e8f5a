import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startRedis } from "../helpers/redis.ts";
import { bookUrls, readItems, startCrawler, waitUntil } from "./_crawl.ts";
import { sleep } from "../helpers/wait.ts";

Deno.test("with queue_idle null a process waits for more after the queue runs dry, and SIGINT ends it with nothing lost", async () => {
  const books = 20;
  const site = await startFixtureSite({ books });
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), "netweir-idle-"));
  try {
    const crawler = startCrawler({ dir, name: "waiting", site, queue: redis.url, settings: ["queue_idle=null"] });
    let exited = false;
    crawler.process.wait().then(() => exited = true, () => exited = true);
    await waitUntil("every book is written", async () => (await readItems(crawler.items)).length === books);
    // Three times the idle time the other tests use, and it is still there.
    await sleep(3000);
    assert.equal(exited, false, "it did not end on its own");
    const status = await runCli(["queue", "status", redis.url, "Shop"]);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /^waiting: 0\nheld: 0\nprocesses: 1\n/);

    // Fed while it waits: a listing page it has not seen is fetched.
    const pushed = await runCli(["queue", "push", redis.url, "Shop", `${site.url}shop/catalogue/page-1.html`]);
    assert.equal(pushed.code, 0, pushed.stderr);
    await waitUntil("the pushed page is fetched", () => site.hits("/shop/catalogue/page-1.html") === 1);

    await crawler.process.kill("SIGINT");
    const result = await crawler.process.wait();
    assert.equal(result.code, 130, result.stderr);
    const items = await readItems(crawler.items);
    assert.deepEqual(items.map((item) => item.url).sort(), bookUrls(site, books).sort(), "nothing lost");
    assert.equal(await redis.command("ZCARD", "netweir:{Shop}:procs"), 0, "it left the crawl");
  } finally {
    await rm(dir, { recursive: true, force: true });
    await redis.stop();
    await site.close();
  }
});
