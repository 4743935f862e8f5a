/**
 * The npm package on the Nodes a newcomer has: an older Node refused in one line before anything runs, and a fresh
 * `npm init -y` project (CommonJS) using `require("netweir")` in a .js and a .cjs spider.
 */
import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { installBuiltPackage, NODE22, runCommand } from "../helpers/node_package.ts";

/** Debian's Node, older than Netweir runs on (the task's machine has Node 20 there). */
const OLD_NODE = "/usr/bin/node";

const MJS_SPIDER = `import { Spider } from "netweir";
export class Nothing extends Spider {
  parse() {}
}
`;

Deno.test("on Node 20 the bin refuses every command in one line naming the Node needed, and import throws it", async () => {
  const version = (await runCommand(OLD_NODE, ["--version"])).stdout.trim().replace(/^v/, "");
  assert.match(version, /^20\./, `${OLD_NODE} is Node ${version}, not the Node 20 this test is about`);
  const pkg = await installBuiltPackage();
  try {
    const bin = join(pkg.dir, "node_modules", "netweir", "cli.js");
    await writeFile(join(pkg.dir, "nothing.mjs"), MJS_SPIDER);
    const line = `netweir: this is Node.js ${version}; Netweir needs Node.js 22.12 or later ` +
      "(22.18 or later for .ts spiders)\n";
    for (const args of [["crawl", "nothing.mjs"], ["version"]]) {
      const ran = await runCommand(OLD_NODE, [bin, ...args], { cwd: pkg.dir });
      assert.deepEqual([ran.code, ran.stderr, ran.stdout], [1, line, ""], args.join(" "));
    }
    const imported = await runCommand(
      OLD_NODE,
      ["--input-type=module", "-e", 'import("netweir").catch((e) => { console.log(e.message); process.exit(3); })'],
      { cwd: pkg.dir },
    );
    assert.equal(imported.code, 3, imported.stderr);
    assert.equal(imported.stdout, line.replace(/^netweir: /, ""));
  } finally {
    await pkg.remove();
  }
});

const CJS_SPIDER = `const { Spider } = require("netweir");

class Titles extends Spider {
  constructor() {
    super();
    this.startUrls = [process.env.SITE];
  }
  parse(page) {
    return { title: page.css("title").text(), url: page.url };
  }
}
module.exports = { Titles };
`;

Deno.test("a fresh npm init -y project requires netweir and crawls with a .js and a .cjs spider", async () => {
  const site = await startFixtureSite({ books: 2 });
  const pkg = await installBuiltPackage();
  try {
    const project = join(pkg.dir, "mine");
    await mkdir(project);
    const init = await runCommand("npm", ["init", "-y"], { cwd: project });
    assert.equal(init.code, 0, init.stderr);
    assert.equal(JSON.parse(await readFile(join(project, "package.json"), "utf8")).type ?? "commonjs", "commonjs");
    const required = await runCommand(
      NODE22,
      ["-e", 'const n = require("netweir"); console.log(typeof n.Spider, typeof n.Request)'],
      { cwd: project },
    );
    assert.equal(required.stdout, "function function\n", required.stderr);
    const bin = join(pkg.dir, "node_modules", "netweir", "cli.js");
    const env = { ...Deno.env.toObject(), SITE: `${site.url}shop/` };
    for (const file of ["titles.js", "titles.cjs"]) {
      await writeFile(join(project, file), CJS_SPIDER);
      const out = join(project, `${file}.jsonl`);
      const crawl = await runCommand(NODE22, [bin, "crawl", file, "-O", out], { cwd: project, env });
      assert.equal(crawl.code, 0, `${file}: ${crawl.stderr}`);
      assert.equal(JSON.parse((await readFile(out, "utf8")).trim()).url, `${site.url}shop/`, file);
    }
  } finally {
    await pkg.remove();
    await site.close();
  }
});
