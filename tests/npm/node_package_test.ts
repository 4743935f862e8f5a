import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { installBuiltPackage } from "../helpers/node_package.ts";

const MJS_SPIDER = `import { Request, Spider } from "netweir";

export class Shop extends Spider {
  site = "http://127.0.0.1:1/";
  async *start() {
    yield new Request({ url: this.site });
  }
  *parse(page) {
    for (const href of page.css("article.product_pod h3 a").attrs("href")) {
      yield page.follow(href, { callback: this.parseBook });
    }
    const next = page.css("li.next a").attr("href");
    if (next) yield page.follow(next);
  }
  parseBook(page) {
    return { title: page.css("h1").text(), url: page.url };
  }
}
`;

const TS_SPIDER = `import { type Page, Request, Spider } from "netweir";

export class TypedShop extends Spider {
  site: string = "http://127.0.0.1:1/";
  override async *start(): AsyncGenerator<Request> {
    yield new Request({ url: this.site });
  }
  override *parse(page: Page) {
    for (const href of page.css("article.product_pod h3 a").attrs("href")) {
      yield page.follow(href, { callback: this.parseBook });
    }
    const next = page.css("li.next a").attr("href");
    if (next) yield page.follow(next);
  }
  parseBook(page: Page): { title: string; url: string } {
    return { title: page.css("h1").text(), url: page.url };
  }
}
`;

Deno.test("the npm package, packed and installed, runs on Node 22: version, list, crawl of .mjs and .ts spiders", async () => {
  const site = await startFixtureSite({ books: 50 });
  const pkg = await installBuiltPackage();
  try {
    const version = await pkg.netweir(["version"]);
    assert.equal(version.code, 0, version.stderr);
    assert.match(version.stdout, /^netweir 0\.4\.0\nnode 22\.\d+\.\d+\n$/);

    await writeFile(join(pkg.dir, "shop.mjs"), MJS_SPIDER);
    await writeFile(join(pkg.dir, "typed.ts"), TS_SPIDER);
    const list = await pkg.netweir(["list", "."]);
    assert.equal(list.code, 0, list.stderr);
    assert.equal(list.stdout, "Shop\tshop.mjs\nTypedShop\ttyped.ts\n");

    for (const file of ["shop.mjs", "typed.ts"]) {
      const out = join(pkg.dir, `${file}.jsonl`);
      const crawl = await pkg.netweir(["crawl", file, "-a", `site=${site.url}shop/`, "-O", out]);
      assert.equal(crawl.code, 0, crawl.stderr);
      const items = (await readFile(out, "utf8")).trim().split("\n").map((line) => JSON.parse(line));
      assert.equal(items.length, 50, file);
      assert.equal(new Set(items.map((item) => item.url)).size, 50);
    }

    const bad = await pkg.netweir(["crawl", "shop.mjs", "-s", "concurrency=0"]);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, "netweir: setting concurrency must be at least 1\n");
  } finally {
    await pkg.remove();
    await site.close();
  }
});

Deno.test("the npm build uses no Deno global and leaves Deno's runtime file out", async () => {
  const pkg = await installBuiltPackage();
  try {
    const check = await pkg.node([
      "--input-type=module",
      "-e",
      `import { readdirSync, readFileSync, statSync } from "node:fs";
       const walk = (d) => readdirSync(d).flatMap((f) => statSync(d + "/" + f).isDirectory() ? walk(d + "/" + f) : [d + "/" + f]);
       const files = walk("node_modules/netweir").filter((f) => f.endsWith(".js"));
       const offenders = files.filter((f) => /\\bDeno\\./.test(readFileSync(f, "utf8").replace(/\\/\\*[\\s\\S]*?\\*\\/|\\/\\/.*$/gm, "")));
       console.log(JSON.stringify({ count: files.length, offenders, denoFile: files.some((f) => f.endsWith("runtime/deno.js")) }));`,
    ]);
    assert.equal(check.code, 0, check.stderr);
    const result = JSON.parse(check.stdout);
    assert.ok(result.count > 20);
    assert.deepEqual(result.offenders, []);
    assert.equal(result.denoFile, false);
    const imported = await pkg.node([
      "--input-type=module",
      "-e",
      `import * as netweir from "netweir"; console.log(typeof netweir.Spider, typeof netweir.Request, typeof netweir.Settings);`,
    ]);
    assert.equal(imported.stdout, "function function function\n", imported.stderr);
  } finally {
    await pkg.remove();
  }
});
