/**
 * A spider that follows every href of a page, the way tutorials write it, on pages that also link `mailto:`,
 * `tel:` and `javascript:`: the other schemes are dropped and counted as `scheme`, and the rest of each page's links
 * are still followed, with and without callback workers.
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runCli, withTempDir } from "./_run.ts";

const MOD = JSON.stringify(new URL("../../mod.ts", import.meta.url).href);

const SPIDER = `import { type Page, Request, Spider } from ${MOD};
export class Everything extends Spider {
  site = "";
  override async *start() {
    yield new Request({ url: this.site });
  }
  override *parse(page: Page) {
    yield { url: page.url };
    for (const href of page.css("a").attrs("href")) yield page.follow(href);
  }
}
`;

/** Pages 0 to 4; each links mail, a phone, a script and the next page (after them, so a throw would lose it). */
function page(n: number): string {
  return `<html><body>
<a href="mailto:shop@example.com">mail us</a> <a href="tel:+1-555-0100">call</a>
<a href="javascript:void(0)">menu</a> <a href="JavaScript:history.back()">back</a>
${n < 4 ? `<a href="/page/${n + 1}">next</a>` : ""}
</body></html>`;
}

for (const workers of [0, 1]) {
  Deno.test(`following mailto:, tel: and javascript: links drops them as "scheme" and keeps crawling (workers=${workers})`, async () => {
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
      const n = Number(new URL(request.url).pathname.split("/").pop() || 0);
      return new Response(page(n), { headers: { "content-type": "text/html" } });
    });
    try {
      await withTempDir(async (dir) => {
        await writeFile(join(dir, "everything.ts"), SPIDER);
        const items = join(dir, "items.jsonl");
        const statsFile = join(dir, "stats.json");
        const result = await runCli([
          "crawl",
          join(dir, "everything.ts"),
          "-a",
          `site=http://127.0.0.1:${server.addr.port}/page/0`,
          "-O",
          items,
          "--stats-file",
          statsFile,
          "-s",
          `workers=${workers}`,
          "-s",
          "obey_robots_txt=false",
        ]);
        assert.equal(result.code, 0, result.stderr);
        const urls = (await readFile(items, "utf8")).trim().split("\n").map((line) => JSON.parse(line).url);
        assert.deepEqual(
          urls.map((url: string) => new URL(url).pathname).sort(),
          [0, 1, 2, 3, 4].map((n) => `/page/${n}`),
        );
        const stats = JSON.parse(await readFile(statsFile, "utf8"));
        assert.equal(stats.dropped.scheme, 20, JSON.stringify(stats));
        assert.equal(stats.errors ?? 0, 0, JSON.stringify(stats));
        assert.doesNotMatch(result.stderr, /not an http|TypeError/);
      });
    } finally {
      await server.shutdown();
    }
  });
}
