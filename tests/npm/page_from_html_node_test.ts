/**
 * docs/spiders.md's Node test of a callback runs on the packed npm build under Node 22: the spider and its test
 * written beside the installed package and run with `node --test`, as a Node user runs them.
 */
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { namedDocBlocks } from "../helpers/doc_blocks.ts";
import { installBuiltPackage } from "../helpers/node_package.ts";

Deno.test("the guide's Node test of a callback, with Page.fromHtml and XPath, passes under node --test on the npm build", async () => {
  const blocks = await namedDocBlocks("spiders.md");
  const pkg = await installBuiltPackage();
  try {
    for (const file of ["spiders/shelf.ts", "tests/shelf.test.ts"]) {
      assert.ok(blocks.has(file), `docs/spiders.md has ${file}`);
      await mkdir(dirname(join(pkg.dir, file)), { recursive: true });
      await writeFile(join(pkg.dir, file), blocks.get(file)!);
    }
    const ran = await pkg.node(["--test", "tests/shelf.test.ts"]);
    assert.equal(ran.code, 0, ran.stdout + ran.stderr);
    assert.match(ran.stdout, /^# pass 1$/m);
    assert.match(ran.stdout, /^# fail 0$/m);
    // Node loads the XPath engine with require() of an ES module: no warning about it on the way.
    assert.doesNotMatch(ran.stdout + ran.stderr, /ExperimentalWarning/);
  } finally {
    await pkg.remove();
  }
});
