/**
 * The npm build is cached per state of the sources (tests/helpers/node_package.ts): these tests show that the cache's
 * key changes with every file the build reads, and only with those, so that a cached build is never a stale one.
 */
import assert from "node:assert/strict";
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { installBuiltPackage } from "../helpers/node_package.ts";
import { npmBuildInputs, npmBuildKey } from "../helpers/npm_build_key.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** A copy of the build's inputs, and of one file that is not one, in a directory of its own. */
async function copyOfInputs(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "netweir-key-"));
  for (const file of [...await npmBuildInputs(ROOT), "tests/npm/package_json_test.ts"]) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await copyFile(join(ROOT, file), join(dir, file));
  }
  return dir;
}

Deno.test("the npm build's key changes when a source changes or is added, and not for tests or the build's output", async () => {
  const dir = await copyOfInputs();
  try {
    const key = await npmBuildKey(dir);
    assert.equal(await npmBuildKey(dir), key);
    assert.equal(key, await npmBuildKey(ROOT));

    const source = join(dir, "src", "version.ts");
    await writeFile(source, "export const VERSION = 'changed';\n");
    const changed = await npmBuildKey(dir);
    assert.notEqual(changed, key);
    await copyFile(join(ROOT, "src", "version.ts"), source);
    assert.equal(await npmBuildKey(dir), key);

    await writeFile(join(dir, "src", "added.ts"), "export {};\n");
    assert.notEqual(await npmBuildKey(dir), key);
    await rm(join(dir, "src", "added.ts"));

    for (const input of ["deno.json", "scripts/build_npm.ts", "npm/README.md", "scripts/npm/package_json.ts"]) {
      await writeFile(join(dir, input), " ", { flag: "a" });
      assert.notEqual(await npmBuildKey(dir), key, input);
      await copyFile(join(ROOT, input), join(dir, input));
    }

    await writeFile(join(dir, "tests", "npm", "package_json_test.ts"), "// not read by the build\n", { flag: "a" });
    await mkdir(join(dir, "npm", "dist"), { recursive: true });
    await writeFile(join(dir, "npm", "dist", "mod.js"), "export {};\n");
    assert.equal(await npmBuildKey(dir), key);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

async function filesUnder(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...await filesUnder(path));
    else files.push(path);
  }
  return files;
}

Deno.test("every file of the built npm package comes from one of the key's inputs, and the build is shared", async () => {
  const inputs = new Set(await npmBuildInputs(ROOT));
  const first = await installBuiltPackage();
  const second = await installBuiltPackage();
  try {
    const installed = join(first.dir, "node_modules", "netweir");
    const shipped = (await filesUnder(installed)).map((file) => relative(installed, file).split("\\").join("/"));
    assert.ok(shipped.length > 20);
    const copied: Record<string, string> = { "package.json": "deno.json", "README.md": "npm/README.md" };
    for (const file of shipped) {
      const source = copied[file] ?? file.replace(/(\.d)?\.js$/, ".ts").replace(/\.d\.ts$/, ".ts");
      assert.ok(inputs.has(source), `${file} comes from ${source}, which the build's key does not cover`);
    }
    // One build for both, kept under the current key, in two projects of their own.
    assert.deepEqual(await readdir(join(ROOT, ".cache", "npm-package")), [await npmBuildKey(ROOT)]);
    assert.notEqual(first.dir, second.dir);
  } finally {
    await first.remove();
    await second.remove();
  }
});
