/** Uncaught errors are attributed to the crawl whose page raised them (src/engine/uncaught.ts). */
import assert from "node:assert/strict";
import { type Page, Request, Spider } from "../../mod.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { crawlItems } from "./_crawl.ts";

/** Leaves one promise rejected with no handler on each of its pages. */
class Careless extends Spider {
  site = "";
  override async *start() {
    yield new Request({ url: `${this.site}slow?ms=300` });
  }
  override parse(page: Page) {
    void Promise.reject(new Error(`forgot to await this on ${page.url}`));
    return { careless: true };
  }
}

/** Takes longer than the careless one, so that both crawls run when its error surfaces. */
class Careful extends Spider {
  site = "";
  override async *start() {
    yield new Request({ url: `${this.site}slow?ms=900` });
  }
  override parse() {
    return { careful: true };
  }
}

Deno.test("with two crawls in one process, an uncaught error counts only in the crawl whose page raised it", async () => {
  const site = await startFixtureSite({ books: 0 });
  try {
    const careless: string[] = [];
    const careful: string[] = [];
    const settings = { obeyRobotsTxt: false };
    const [loose, tidy] = await Promise.all([
      crawlItems(Object.assign(new Careless(), { site: site.url }), settings, { lines: careless }),
      crawlItems(Object.assign(new Careful(), { site: site.url }), settings, { lines: careful }),
    ]);
    assert.equal(loose.stats.errors_uncaught, 1);
    assert.equal(loose.stats.errors, 1);
    assert.equal(tidy.stats.errors_uncaught, undefined, "the careful crawl counted another's error");
    assert.equal(tidy.stats.errors, 0);
    assert.equal(careless.filter((line) => line.includes("forgot to await this")).length, 1, careless.join("\n"));
    assert.deepEqual(careful.filter((line) => line.includes("forgot to await this")), []);
    assert.deepEqual(tidy.items, [{ careful: true }]);
  } finally {
    await site.close();
  }
});
