/**
 * fetch, parse and shell in a project without --spider-file (issue 25, item 1: "or run from a project"): the
 * project's spider whose allowedDomains hold the URL's host is the one used, as Scrapy's commands find theirs.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { jsonLines, runCli, withTempDir } from "./_run.ts";

const LOCAL_SPIDER = (name: string) =>
  `import { type Page, type Request, Spider } from "netweir";

export class ${name} extends Spider {
  override allowedDomains = ["127.0.0.1"];
  override middlewares = [{
    processRequest: (request: Request) => request.replace({ headers: { ...request.headers, "x-spider": "${name}" } }),
  }];
  override *parse(page: Page) {
    yield { title: page.css("title").text(), by: "${name}" };
  }
}
`;

const OTHER_SPIDER = `import { Spider } from "netweir";

export class Elsewhere extends Spider {
  override allowedDomains = ["example.org"];
}
`;

Deno.test("in a project, fetch, parse and shell use the spider whose allowedDomains hold the URL's host", async () => {
  const site = await startFixtureSite({ books: 1 });
  try {
    await withTempDir(async (dir) => {
      assert.equal((await runCli(["startproject", "shop"], { cwd: dir })).code, 0);
      const project = join(dir, "shop");
      await writeFile(join(project, "spiders", "local.ts"), LOCAL_SPIDER("Local"));
      await writeFile(join(project, "spiders", "elsewhere.ts"), OTHER_SPIDER);

      const fetched = await runCli(["fetch", `${site.url}echo`], { cwd: project });
      assert.equal(fetched.code, 0, fetched.stderr);
      assert.equal(JSON.parse(fetched.stdout).headers["x-spider"], "Local");
      const parsed = await runCli(["parse", `${site.url}shop/`, "--jsonl"], { cwd: project });
      assert.equal(parsed.code, 0, parsed.stderr);
      assert.equal((jsonLines(parsed.stdout).find((line) => line.type === "item")!.item as { by: string }).by, "Local");
      const shell = await runCli(["shell", `${site.url}shop/`, "-c", "spider.constructor.name"], { cwd: project });
      assert.equal(shell.stdout, "'Local'\n", shell.stderr);

      // Two spiders for one host: neither is chosen, as a plain fetch shows, and parse asks for one.
      await writeFile(join(project, "spiders", "twin.ts"), LOCAL_SPIDER("Twin"));
      const plain = await runCli(["fetch", `${site.url}echo`], { cwd: project });
      assert.equal(JSON.parse(plain.stdout).headers["x-spider"], undefined);
      const unsure = await runCli(["parse", `${site.url}shop/`], { cwd: project });
      assert.equal(unsure.code, 2);
      assert.equal(unsure.stderr, "netweir: parse needs the spider: --spider-file FILE\n");
    });
  } finally {
    await site.close();
  }
});
