/**
 * Sessions through the packed npm build under Node 22, as a user of the package runs a crawl: a site that blocks each
 * login after two pages, crawled with `sessions=2`; every page is fetched in the end, each blocked session retired and
 * its request retried in another, and a callback reads `page.session`. About 2 min when the npm build has to be made
 * (after any change under src/), a few seconds when it is cached.
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { installBuiltPackage } from "../helpers/node_package.ts";
import { startSessionSite } from "../helpers/session_site.ts";

const SPIDER = `import { Request, Spider } from "netweir";

export class Pages extends Spider {
  site = "http://127.0.0.1:1/";
  async *start() {
    for (let i = 0; i < 8; i++) yield new Request({ url: new URL("page/" + i, this.site).href });
  }
  parse(page) {
    return { sid: page.css("#sid").text(), session: page.session.id, meta: page.meta.session };
  }
}
`;

Deno.test("on the npm build under Node 22, a blocked session is retired and its request retried in another", async () => {
  const site = await startSessionSite({ blockAfter: 2 });
  const pkg = await installBuiltPackage();
  try {
    await writeFile(join(pkg.dir, "pages.mjs"), SPIDER);
    const out = join(pkg.dir, "items.jsonl");
    const statsFile = join(pkg.dir, "stats.json");
    const ran = await pkg.netweir([
      "crawl",
      "pages.mjs",
      "-a",
      `site=${site.url}`,
      "-O",
      out,
      "--stats-file",
      statsFile,
      ...["-s", "sessions=2", "-s", "concurrency=1", "-s", "retries=8", "-s", "obey_robots_txt=false"],
    ]);
    assert.equal(ran.code, 0, ran.stderr);
    const items = (await readFile(out, "utf8")).trim().split("\n").map((line) => JSON.parse(line));
    assert.equal(items.length, 8);
    for (const item of items) assert.equal(item.meta, item.session);
    for (const sid of new Set(items.map((item) => item.sid))) {
      assert.ok(items.filter((item) => item.sid === sid).length <= 2, `${sid} was served past its block`);
    }
    const stats = JSON.parse(await readFile(statsFile, "utf8"));
    const blocked = site.hits.filter((hit) => hit.blocked).length;
    assert.ok(blocked > 0);
    assert.equal(stats["sessions.retired_blocked"], blocked);
    assert.equal(stats["sessions.used"], site.logins());
  } finally {
    await pkg.remove();
    await site.close();
  }
});
