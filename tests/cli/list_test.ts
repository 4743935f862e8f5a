/** `netweir list`: spiders of a file or a directory, each file loaded in a process of its own. */
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fixture, runCli, withTempDir } from "./_run.ts";

const FIXTURES = fixture("");
const SPIDER_MODULE = new URL("../../src/spider/spider.ts", import.meta.url).href;

Deno.test("list of a file with two spiders prints each one's name and file, once, and exits 0", async () => {
  const result = await runCli(["list", "two_spiders.ts"], { cwd: FIXTURES });
  assert.equal(result.stderr, "");
  assert.equal(result.code, 0);
  // Books is exported twice (Books, AlsoBooks) and listed once; Spider itself and plain values are not spiders.
  assert.equal(result.stdout, "Books\ttwo_spiders.ts\nquotes\ttwo_spiders.ts\n");
});

Deno.test("list of a directory reports a broken file by name, lists the others, and exits 1", async () => {
  const result = await runCli(["list", "spiders"], { cwd: FIXTURES });
  assert.equal(result.code, 1);
  // chatty.ts prints while loading, even a line that looks like a result; nested/gamma.ts is in a subdirectory.
  assert.equal(result.stdout, "alpha\tspiders/alpha.ts\nChatty\tspiders/chatty.ts\n");
  assert.equal(result.stderr, "netweir: spiders/broken.ts: cannot reach redis://:***@127.0.0.1:1/0 while loading\n");
});

Deno.test("list --json prints one array of spiders and of files that failed", async () => {
  const result = await runCli(["list", "--json", "spiders"], { cwd: FIXTURES });
  assert.equal(result.code, 1);
  assert.equal(result.stderr, "");
  assert.deepEqual(JSON.parse(result.stdout), [
    { name: "alpha", class: "AlphaSpider", file: "spiders/alpha.ts" },
    { file: "spiders/broken.ts", error: "cannot reach redis://:***@127.0.0.1:1/0 while loading" },
    { name: "Chatty", class: "Chatty", file: "spiders/chatty.ts" },
  ]);
});

Deno.test("list --json of a directory where every file loads exits 0", async () => {
  const result = await runCli(["list", "--json", join(FIXTURES, "spiders", "nested")]);
  assert.equal(result.code, 0);
  assert.deepEqual(JSON.parse(result.stdout), [
    { name: "Gamma", class: "Gamma", file: join(FIXTURES, "spiders", "nested", "gamma.ts") },
  ]);
});

Deno.test("list skips test and declaration files and reports a syntax error in one line", async () => {
  await withTempDir(async (dir) => {
    const spider = (name: string) =>
      `import { Spider } from ${JSON.stringify(SPIDER_MODULE)};\nexport class ${name} extends Spider {}\n`;
    await writeFile(join(dir, "ok.ts"), spider("Ok"));
    await writeFile(join(dir, "plain.js"), spider("Plain"));
    await writeFile(join(dir, "ok_test.ts"), 'throw new Error("a test file was loaded");\n');
    await writeFile(join(dir, "ok.test.ts"), 'throw new Error("a test file was loaded");\n');
    await writeFile(join(dir, "types.d.ts"), "export declare const x: number;\n");
    await writeFile(join(dir, "notes.md"), "# not code\n");
    await writeFile(join(dir, "bad_syntax.ts"), "export const = ;\n");
    await mkdir(join(dir, "sub"));
    await writeFile(join(dir, "sub", "deep.ts"), spider("Deep"));
    const result = await runCli(["list", "."], { cwd: dir });
    assert.equal(result.code, 1);
    assert.equal(result.stdout, "Ok\tok.ts\nPlain\tplain.js\n");
    const lines = result.stderr.split("\n").filter(Boolean);
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0], /^netweir: bad_syntax\.ts: \S/);
  });
});

Deno.test("list of a path that does not exist exits 2 with one line", async () => {
  await withTempDir(async (dir) => {
    const result = await runCli(["list", "missing"], { cwd: dir });
    assert.equal(result.code, 2);
    assert.equal(result.stderr, "netweir: no such file or directory: missing\n");
    assert.equal(result.stdout, "");
  });
});

Deno.test("list of a file without spiders prints nothing and exits 0", async () => {
  const result = await runCli(["list", fileURLToPath(new URL("./fixtures/no_spider.ts", import.meta.url))]);
  assert.equal(result.code, 0);
  assert.equal(result.stdout, "");
  assert.equal(result.stderr, "");
});
