/**
 * The developer's-loop commands on the packed npm build under Node 22 (issue 25): fetch, parse, check, crawl with a
 * Crawled line per page and items on standard output, genspider, settings, and shell (its
 * prompt driven in a pseudo-terminal through tmux) against the fixture shop on 127.0.0.1, with a .ts spider that
 * imports "netweir" as a Node user's does.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { installBuiltPackage, NODE22 } from "../helpers/node_package.ts";
import { Terminal } from "../helpers/tmux.ts";

const SPIDER = `import { type Contracts, type Page, Request, Spider } from "netweir";

export class NodeShop extends Spider {
  static contracts: Contracts = { parse: { url: "", items: 0, requests: 2 } };
  site = "http://127.0.0.1:1/";
  override async *start() {
    yield new Request({ url: this.site });
  }
  override middlewares = [{
    processRequest: (request: Request) => request.replace({ headers: { ...request.headers, "x-devloop": "node" } }),
  }];
  override *parse(page: Page) {
    for (const href of page.css("article.product_pod h3 a").attrs("href")) {
      yield page.follow(href, { callback: this.parseBook });
    }
  }
  parseBook(page: Page) {
    return { title: page.css("h1").text(), url: page.url };
  }
}
`;

Deno.test("under Node 22, fetch, parse, check, crawl -o -, genspider, settings and the shell's prompt work from the packed build", async () => {
  const site = await startFixtureSite({ books: 2 });
  const pkg = await installBuiltPackage();
  let term: Terminal | undefined;
  try {
    await writeFile(join(pkg.dir, "shop.ts"), SPIDER);
    const fetched = await pkg.netweir(["fetch", `${site.url}echo`, "--spider-file", "shop.ts"]);
    assert.equal(fetched.code, 0, fetched.stderr);
    assert.equal(JSON.parse(fetched.stdout).headers["x-devloop"], "node");

    const parsed = await pkg.netweir(["parse", `${site.url}shop/`, "--spider-file", "shop.ts", "-d", "2", "--jsonl"]);
    assert.equal(parsed.code, 0, parsed.stderr);
    const lines = parsed.stdout.trim().split("\n").map((line) => JSON.parse(line));
    assert.equal(lines.filter((line) => line.type === "item" && line.level === 2).length, 2);

    const failed = await pkg.netweir(["fetch", "http://127.0.0.1:1/", "-s", "retries=0"]);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /^netweir: fetching http:\/\/127\.0\.0\.1:1\/ failed: connection refused[^\n]*\n$/);

    const checked = await pkg.netweir(["check", "shop.ts", "-a", `site=${site.url}shop/`]);
    assert.equal(checked.code, 0, checked.stdout + checked.stderr);
    assert.match(checked.stdout, /^PASS {2}NodeShop\.parse {2}/m);

    const crawled = await pkg.netweir([
      "crawl",
      "shop.ts",
      "-a",
      `site=${site.url}shop/`,
      "--log-level",
      "debug",
      "-o",
      "-",
    ]);
    assert.equal(crawled.code, 0, crawled.stderr);
    assert.equal(crawled.stdout.trim().split("\n").length, 2);
    assert.equal(crawled.stderr.split("\n").filter((line) => line.includes(" DEBUG Crawled (200) <GET ")).length, 3);

    const made = await pkg.netweir(["genspider", "news", "news.example.org", "-t", "rules"]);
    assert.equal(made.code, 0, made.stderr);
    assert.equal(made.stdout, "Created spider news (template rules) in news.ts\n");
    const agent = await pkg.netweir(["settings", "--spider-file", "news.ts", "--get", "user_agent"]);
    assert.equal(agent.code, 0, agent.stderr);
    assert.match(agent.stdout, /^netweir\/\d+\.\d+\.\d+\n$/);

    const bin = join(pkg.dir, "node_modules", "netweir", "cli.js");
    term = await Terminal.start([NODE22, bin, "shell", `${site.url}shop/`, "--spider-file", "shop.ts"], {
      cwd: pkg.dir,
      env: { XDG_CACHE_HOME: join(pkg.dir, ".cache") },
    });
    await term.waitFor(/netweir>$/);
    await term.type('page.css("h3 a").length + " " + (await fetch("' + site.url + 'echo")).status');
    await term.waitFor(/^'2 200'$/m);
    await term.type('JSON.parse(page.text).headers["x-devloop"]');
    await term.waitFor(/^'node'$/m);
    await term.type("exit()");
    assert.equal(await term.exited(), 0);
  } finally {
    await term?.close();
    await pkg.remove();
    await site.close();
  }
});
