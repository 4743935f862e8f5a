/**
 * The key of an npm build: a hash of every file scripts/build_npm.ts reads, so that a build cached under it is
 * reused only while none of them has changed. The inputs are named by rule, not listed one by one (every file under
 * src/, npm/ but npm/dist, and scripts/npm/, and the entries deno.json exports), so a new module is covered the moment
 * it exists; tests/npm/npm_build_cache_test.ts checks that every file of the built package comes from one of them.
 */
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";

/** Directories read whole (npm/dist, the build's output, left out). */
const INPUT_DIRS = ["src", "npm", join("scripts", "npm")];
/** Single files: the build script, the config it generates package.json from, the lock and what it copies in. */
const INPUT_FILES = [join("scripts", "build_npm.ts"), "deno.json", "deno.lock", "LICENSE"];
const OUTPUT_DIR = join("npm", "dist");

async function filesUnder(root: string, dir: string): Promise<string[]> {
  const entries = await readdir(join(root, dir), { withFileTypes: true }).catch(() => []);
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (path === OUTPUT_DIR) continue;
    if (entry.isDirectory()) files.push(...await filesUnder(root, path));
    else files.push(path);
  }
  return files;
}

/** The files of `root` an npm build reads, relative to `root` with `/` between names, sorted. */
export async function npmBuildInputs(root: string): Promise<string[]> {
  const config = JSON.parse(await readFile(join(root, "deno.json"), "utf8")) as { exports: Record<string, string> };
  const entries = Object.values(config.exports).map((entry) => relative(".", entry));
  const files = new Set([...INPUT_FILES, ...entries]);
  for (const dir of INPUT_DIRS) for (const file of await filesUnder(root, dir)) files.add(file);
  return [...files].map((file) => file.split(sep).join("/")).sort();
}

/** A hex hash of the inputs' names and contents, and of the Deno that runs the build's compiler. */
export async function npmBuildKey(root: string): Promise<string> {
  const hash = createHash("sha256");
  hash.update(`deno ${Deno.version.deno}\0`);
  for (const file of await npmBuildInputs(root)) {
    const content = await readFile(join(root, file)).catch(() => null);
    // A name and its length before the bytes, so that no two different sets of files hash the same stream.
    hash.update(`${file}\0${content === null ? "absent" : content.byteLength}\0`);
    if (content) hash.update(content);
  }
  return hash.digest("hex").slice(0, 32);
}
