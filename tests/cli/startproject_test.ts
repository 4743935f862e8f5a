/** `netweir startproject NAME`: a new project that `list` (and so `serve`) can read at once. */
import assert from "node:assert/strict";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runtime } from "../../src/runtime/mod.ts";
import { CRAWL_V8_FLAGS } from "../../src/runtime/heap_flags.ts";
import { runCommand } from "../helpers/command.ts";
import { CLI_PATH, runCli, withTempDir } from "./_run.ts";

const MOD_URL = new URL("../../mod.ts", import.meta.url).href;

Deno.test("startproject creates a project whose example spider list finds", async () => {
  await withTempDir(async (dir) => {
    const created = await runCli(["startproject", "shop"], { cwd: dir });
    assert.equal(created.stderr, "");
    assert.equal(created.code, 0);
    assert.match(created.stdout, /^created shop\//);
    assert.deepEqual((await readdir(join(dir, "shop"))).sort(), ["README.md", "deno.json", "spiders"]);

    const config = JSON.parse(await readFile(join(dir, "shop", "deno.json"), "utf8"));
    assert.equal(config.imports.netweir, MOD_URL);
    const example = await readFile(join(dir, "shop", "spiders", "example.ts"), "utf8");
    assert.match(example, /from "netweir"/);
    const readme = await readFile(join(dir, "shop", "README.md"), "utf8");
    assert.match(readme, /netweir crawl spiders\/example\.ts -o items\.jsonl/);
    assert.match(readme, /netweir serve --project shop=shop\/spiders/);

    const listed = await runCli(["list", "spiders"], { cwd: join(dir, "shop") });
    assert.equal(listed.stderr, "");
    assert.equal(listed.code, 0);
    assert.equal(listed.stdout, "example\tspiders/example.ts\n");
    // And from the directory above, the way serve --project NAME=NAME/spiders reads it.
    const fromAbove = await runCli(["list", "--json", "shop/spiders"], { cwd: dir });
    assert.deepEqual(JSON.parse(fromAbove.stdout), [{
      name: "example",
      class: "Example",
      file: "shop/spiders/example.ts",
    }]);
  });
});

Deno.test("startproject refuses names that are not identifier-like, exit 2, creating nothing", async () => {
  await withTempDir(async (dir) => {
    for (const name of ["1shop", "my shop", "../escape", "a/b", ".hidden", "shop!", "é"]) {
      const result = await runCli(["startproject", name], { cwd: dir });
      assert.equal(result.code, 2, name);
      assert.match(result.stderr, /^netweir: invalid project name "[^\n]*": use a letter, then [^\n]*\n$/, name);
    }
    assert.deepEqual(await readdir(dir), []);
  });
});

Deno.test("startproject accepts letters, digits, underscores and hyphens after a first letter", async () => {
  await withTempDir(async (dir) => {
    const result = await runCli(["startproject", "My_shop-2"], { cwd: dir });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(await readdir(join(dir, "My_shop-2", "spiders")), ["example.ts"]);
  });
});

Deno.test("startproject leaves an existing directory alone and exits 1", async () => {
  await withTempDir(async (dir) => {
    await mkdir(join(dir, "shop"));
    await writeFile(join(dir, "shop", "notes.txt"), "mine");
    const result = await runCli(["startproject", "shop"], { cwd: dir });
    assert.equal(result.code, 1);
    assert.equal(result.stderr, "netweir: shop already exists\n");
    assert.deepEqual(await readdir(join(dir, "shop")), ["notes.txt"]);
    assert.equal(await readFile(join(dir, "shop", "notes.txt"), "utf8"), "mine");
  });
});

Deno.test("startproject refuses a name taken by a file, exit 1", async () => {
  await withTempDir(async (dir) => {
    await writeFile(join(dir, "shop"), "a file");
    const result = await runCli(["startproject", "shop"], { cwd: dir });
    assert.equal(result.code, 1);
    assert.equal(result.stderr, "netweir: shop already exists\n");
    assert.equal(await readFile(join(dir, "shop"), "utf8"), "a file");
  });
});

/** Runs the deno binary running these tests with `args` in `cwd`. */
function runDeno(args: string[], cwd: string) {
  return runCommand(runtime.selfCommand(CLI_PATH).command, args, { cwd });
}

Deno.test({
  name: "the example spider of a new project type-checks against the library",
  ignore: runtime.name !== "deno",
}, async () => {
  await withTempDir(async (dir) => {
    assert.equal((await runCli(["startproject", "shop"], { cwd: dir })).code, 0);
    const checked = await runDeno(["check", "spiders/example.ts"], join(dir, "shop"));
    assert.equal(checked.code, 0, checked.stderr);
  });
});

Deno.test(
  { name: "a new project's deno task runs this installation's CLI", ignore: runtime.name !== "deno" },
  async () => {
    await withTempDir(async (dir) => {
      assert.equal((await runCli(["startproject", "shop"], { cwd: dir })).code, 0);
      const config = JSON.parse(await readFile(join(dir, "shop", "deno.json"), "utf8"));
      // With the crawl's V8 heap settings, which Deno takes only on its command line (src/runtime/heap_flags.ts).
      const v8Flags = `--v8-flags=${CRAWL_V8_FLAGS.deno.join(",")}`;
      assert.equal(config.tasks.netweir, `deno run -A --quiet ${JSON.stringify(v8Flags)} ${CLI_PATH}`);
      const ran = await runDeno(["task", "--quiet", "netweir", "version"], join(dir, "shop"));
      assert.equal(ran.code, 0, ran.stderr);
      assert.match(ran.stdout, /^netweir \d+\.\d+\.\d+\n/);
    });
  },
);
