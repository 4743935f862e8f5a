/**
 * docs/spiders.md's "Testing a callback" examples run as a user runs them: the spider and its Deno test written into
 * a project whose "netweir" is this checkout, and `deno test` run there (the Node test of the same page runs on the
 * npm build in tests/npm/page_from_html_node_test.ts).
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { runtime } from "../../src/runtime/mod.ts";
import { CLI_PATH } from "../helpers/cli.ts";
import { runCommand } from "../helpers/command.ts";
import { namedDocBlocks } from "../helpers/doc_blocks.ts";

Deno.test({
  name: "the guide's Deno test of a callback, with Page.fromHtml, passes under deno test",
  ignore: runtime.name !== "deno",
}, async () => {
  const blocks = await namedDocBlocks("spiders.md");
  const dir = await mkdtemp(join(tmpdir(), "netweir-fromhtml-"));
  try {
    await writeFile(
      join(dir, "deno.json"),
      JSON.stringify({ imports: { netweir: new URL("../../mod.ts", import.meta.url).href } }),
    );
    for (const file of ["spiders/shelf.ts", "tests/shelf_test.ts"]) {
      assert.ok(blocks.has(file), `docs/spiders.md has ${file}`);
      await mkdir(dirname(join(dir, file)), { recursive: true });
      await writeFile(join(dir, file), blocks.get(file)!);
    }
    const deno = runtime.selfCommand(CLI_PATH).command;
    const ran = await runCommand(deno, ["test", "-A", "tests/shelf_test.ts"], {
      cwd: dir,
      env: { ...Deno.env.toObject(), NO_COLOR: "1" },
    });
    assert.equal(ran.code, 0, ran.stdout + ran.stderr);
    assert.match(ran.stdout, /ok \| 1 passed \| 0 failed/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
