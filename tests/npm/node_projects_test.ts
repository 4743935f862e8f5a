/** Projects a Node user makes: `netweir startproject` under Node, and a .ts spider in a fresh `npm init -y` project. */
import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { installBuiltPackage, NODE22, runCommand } from "../helpers/node_package.ts";

const TS_SPIDER = `import { type Page, Request, Spider } from "netweir";

export class Local extends Spider {
  site: string = "http://127.0.0.1:1/";
  override async *start(): AsyncGenerator<Request> {
    yield new Request({ url: this.site });
  }
  override parse(page: Page) {
    return { title: page.css("title").text(), url: page.url };
  }
}
`;

/** A directory holding what `npm init -y` writes (npm 11): a package.json with "type": "commonjs". */
async function commonJsProject(dir: string): Promise<void> {
  await mkdir(dir);
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({ name: "mine", version: "1.0.0", main: "index.js", type: "commonjs" }),
  );
}

Deno.test("under Node, startproject in a CommonJS project makes a project whose spiders Node loads and crawls", async () => {
  const site = await startFixtureSite({ books: 3 });
  const pkg = await installBuiltPackage();
  try {
    const bin = join(pkg.dir, "node_modules", "netweir", "cli.js");
    const user = join(pkg.dir, "mine");
    await commonJsProject(user);
    const made = await runCommand(NODE22, [bin, "startproject", "shop"], { cwd: user });
    assert.equal(made.code, 0, made.stderr);
    const project = join(user, "shop");
    const listed = await runCommand(NODE22, [bin, "list", "spiders"], { cwd: project });
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.stdout, "example\tspiders/example.ts\n");
    await writeFile(join(project, "spiders", "local.ts"), TS_SPIDER);
    const out = join(project, "items.jsonl");
    const crawl = await runCommand(
      NODE22,
      [bin, "crawl", "spiders/local.ts", "-a", `site=${site.url}shop/`, "-O", out],
      { cwd: project },
    );
    assert.equal(crawl.code, 0, crawl.stderr);
    assert.equal(JSON.parse((await readFile(out, "utf8")).trim()).url, `${site.url}shop/`);
  } finally {
    await pkg.remove();
    await site.close();
  }
});

Deno.test("under Node, a .ts spider in a CommonJS project gets one line saying how to fix it", async () => {
  const pkg = await installBuiltPackage();
  try {
    const bin = join(pkg.dir, "node_modules", "netweir", "cli.js");
    const user = join(pkg.dir, "mine");
    await commonJsProject(user);
    await writeFile(join(user, "local.ts"), TS_SPIDER);
    const crawl = await runCommand(NODE22, [bin, "crawl", "local.ts"], { cwd: user });
    assert.equal(crawl.code, 2, crawl.stderr);
    assert.equal(
      crawl.stderr,
      'netweir: local.ts is loaded as CommonJS, because package.json has no "type": "module"; ' +
        'add "type": "module" to package.json, or name the file local.mts\n',
    );
  } finally {
    await pkg.remove();
  }
});

const CARELESS = `import { type Page, Request, Spider } from "netweir";

export class Careless extends Spider {
  site: string = "http://127.0.0.1:1/";
  override async *start(): AsyncGenerator<Request> {
    yield new Request({ url: this.site });
  }
  override *parse(page: Page) {
    for (const href of page.css("article.product_pod h3 a").attrs("href")) {
      yield page.follow(href, { callback: this.parseBook });
    }
  }
  parseBook(page: Page) {
    if (page.url.includes("_1/")) void Promise.reject(new Error("forgot to await this"));
    if (page.url.includes("_2/")) setTimeout(() => { throw new Error("thrown in a timer"); }, 0);
    return { url: page.url };
  }
}
`;

/** Ports on the Fetch standard's bad-port list, tried in turn: another test may hold one. */
const BAD_PORTS = [6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080, 4190, 5060, 5061, 6566, 6000];

Deno.test("on Node, errors a callback leaves uncaught are contained, and a site on a blocked port is crawled", async () => {
  let site: Awaited<ReturnType<typeof startFixtureSite>> | undefined;
  for (const port of BAD_PORTS) {
    site = await startFixtureSite({ books: 4, port }).catch(() => undefined);
    if (site) break;
  }
  assert.ok(site, "no port of the bad-port list is free");
  const pkg = await installBuiltPackage();
  try {
    await writeFile(join(pkg.dir, "careless.ts"), CARELESS);
    const out = join(pkg.dir, "items.json");
    const stats = join(pkg.dir, "stats.json");
    const crawl = await pkg.netweir([
      "crawl",
      "careless.ts",
      "-a",
      `site=${site.url}shop/`,
      "-O",
      out,
      "--stats-file",
      stats,
    ]);
    assert.equal(crawl.code, 0, crawl.stderr);
    assert.equal(JSON.parse(await readFile(out, "utf8")).length, 4);
    assert.equal(JSON.parse(await readFile(stats, "utf8")).errors_uncaught, 2);
    // Node keeps the page of both: the rejection's and the timer's.
    assert.match(
      crawl.stderr,
      /unhandled rejection in spider Careless on http:\/\/127\.0\.0\.1:\d+\/shop\/catalogue\/\S+_1\/index\.html: forgot/,
    );
    assert.match(
      crawl.stderr,
      /uncaught error in spider Careless on http:\/\/127\.0\.0\.1:\d+\/shop\/catalogue\/\S+_2\/index\.html: thrown/,
    );
  } finally {
    await pkg.remove();
    await site.close();
  }
});
