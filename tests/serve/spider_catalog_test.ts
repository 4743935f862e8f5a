/**
 * The spider catalog: files read once and kept until they change, all changed files of a project in one child
 * process, a file that hangs or ends the process reported by name without costing the others, and no login
 * variable in the reading process. Every spider file here records its imports (process id included) in a file.
 */
import assert from "node:assert/strict";
import { mkdir, readFile, rename, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { selfCli } from "../../src/runtime/self_cli.ts";
import { createProjectRegistry } from "../../src/serve/projects.ts";
import { SpiderCatalog } from "../../src/serve/spider_catalog.ts";
import { withTempDir } from "./_setup.ts";

const SPIDER_MODULE = new URL("../../src/spider/spider.ts", import.meta.url).href;

/** A spider file that appends "NAME PID PASSWORD" to imports.log (next to it) each time it is imported. */
function recordingSpider(className: string, name: string, extra = ""): string {
  return `import { Spider } from ${JSON.stringify(SPIDER_MODULE)};\n` +
    `import { appendFileSync } from "node:fs";\nimport process from "node:process";\n` +
    `appendFileSync(new URL("./imports.log", import.meta.url), ` +
    "`${" + JSON.stringify(name) + '} ${process.pid} ${process.env.NETWEIR_SERVE_PASSWORD ?? "-"}\\n`);\n' +
    extra +
    `export class ${className} extends Spider {\n  override name = ${JSON.stringify(name)};\n}\n`;
}

/** The imports recorded so far: [name, pid, password] each. */
async function imports(dir: string): Promise<string[][]> {
  const text = await readFile(join(dir, "imports.log"), "utf8").catch(() => "");
  return text.trim() === "" ? [] : text.trim().split("\n").map((line) => line.split(" "));
}

function registryOf(dir: string, importTimeoutMs = 10_000) {
  const catalog = new SpiderCatalog({ cli: selfCli(), importTimeoutMs });
  return createProjectRegistry([`mine=${dir}`], "/", { catalog });
}

const names = async (registry: ReturnType<typeof registryOf>) =>
  (await registry.spiders("mine")).spiders.map((spider) => spider.name);

Deno.test("a project's files are read in one process, and not again until one of them changes", async () => {
  await withTempDir(async (dir) => {
    for (const n of [1, 2, 3]) await writeFile(join(dir, `s${n}.ts`), recordingSpider(`S${n}`, `s${n}`));
    const registry = registryOf(dir);
    assert.deepEqual(await names(registry), ["s1", "s2", "s3"]);
    const first = await imports(dir);
    assert.deepEqual(first.map(([name]) => name), ["s1", "s2", "s3"]);
    assert.equal(new Set(first.map(([, pid]) => pid)).size, 1, "one process read all three");

    assert.deepEqual(await names(registry), ["s1", "s2", "s3"]);
    assert.deepEqual(await names(registry), ["s1", "s2", "s3"]);
    assert.equal((await imports(dir)).length, 3, "unchanged files are not read again");

    await writeFile(join(dir, "s2.ts"), recordingSpider("S2", "s2-renamed"));
    assert.deepEqual(await names(registry), ["s1", "s2-renamed", "s3"]);
    assert.deepEqual((await imports(dir)).slice(3).map(([name]) => name), ["s2-renamed"], "only the edited file");

    // Replaced by another file of the same size with the old modification time (as an editor that saves by
    // renaming may leave it): the inode tells.
    const info = await stat(join(dir, "s3.ts"));
    await writeFile(join(dir, "s3.new"), recordingSpider("S3", "s9"));
    await utimes(join(dir, "s3.new"), info.atime, info.mtime);
    await rename(join(dir, "s3.new"), join(dir, "s3.ts"));
    assert.equal((await stat(join(dir, "s3.ts"))).size, info.size);
    assert.deepEqual(await names(registry), ["s1", "s2-renamed", "s9"]);
  });
});

Deno.test("an edited helper in a subdirectory makes every spider file of the project be read again, in one process", async () => {
  await withTempDir(async (dir) => {
    await mkdir(join(dir, "lib"));
    await writeFile(join(dir, "lib", "settings.ts"), "export const NAME = 'from-helper';\n");
    const helper = new URL(`file://${join(dir, "lib", "settings.ts")}`).href;
    await writeFile(
      join(dir, "a.ts"),
      recordingSpider("A", "a").replace('override name = "a"', "override name = NAME") +
        `import { NAME } from ${JSON.stringify(helper)};\n`,
    );
    await writeFile(join(dir, "b.ts"), recordingSpider("B", "b"));
    const registry = registryOf(dir);
    assert.deepEqual(await names(registry), ["from-helper", "b"]);
    await writeFile(join(dir, "lib", "settings.ts"), "export const NAME = 'helper-edited';\n");
    assert.deepEqual(await names(registry), ["helper-edited", "b"]);
    const again = (await imports(dir)).slice(2);
    assert.deepEqual(again.map(([name]) => name), ["a", "b"]);
    assert.equal(again[0][1], again[1][1], "one process");
  });
});

Deno.test("a file that hangs on import is reported by name after the bound, and the files after it are still read", async () => {
  await withTempDir(async (dir) => {
    await writeFile(join(dir, "a.ts"), recordingSpider("A", "a"));
    await writeFile(join(dir, "b_hangs.ts"), recordingSpider("B", "b", "while (true) { /* never returns */ }\n"));
    await writeFile(
      join(dir, "c_exits.ts"),
      recordingSpider("C", "c", 'process.stderr.write("bye now\\n");\nprocess.exit(3);\n'),
    );
    await writeFile(join(dir, "d.ts"), recordingSpider("D", "d"));
    const registry = registryOf(dir, 2000);
    const { spiders, errors } = await registry.spiders("mine");
    assert.deepEqual(spiders.map((spider) => spider.name), ["a", "d"]);
    assert.deepEqual(errors, [
      { file: "b_hangs.ts", error: "did not load within 2 s" },
      { file: "c_exits.ts", error: "bye now" },
    ]);
    // Three processes: the first hung on b, the second ended on c, the third read d.
    const pids = (await imports(dir)).map(([name, pid]) => `${name}:${pid}`);
    assert.equal(new Set(pids.map((entry) => entry.split(":")[1])).size, 3, pids.join(" "));
    // The failures are kept too: nothing changed, so nothing is read (and nothing hangs) again.
    const start = Date.now();
    assert.deepEqual((await registry.spiders("mine")).errors.map((error) => error.file), ["b_hangs.ts", "c_exits.ts"]);
    assert.equal((await imports(dir)).length, 4);
    assert.ok(Date.now() - start < 1500, "the hanging file was not imported again");
  });
});

Deno.test("the process reading spider files never sees the service's login variables", async () => {
  await withTempDir(async (dir) => {
    await writeFile(join(dir, "a.ts"), recordingSpider("A", "a"));
    Deno.env.set("NETWEIR_SERVE_PASSWORD", "pw-in-the-service");
    try {
      assert.deepEqual(await names(registryOf(dir)), ["a"]);
    } finally {
      Deno.env.delete("NETWEIR_SERVE_PASSWORD");
    }
    assert.deepEqual((await imports(dir)).map(([, , password]) => password), ["-"]);
  });
});

Deno.test("two requests that find the same files changed start one reading process between them", async () => {
  await withTempDir(async (dir) => {
    for (const n of [1, 2]) await writeFile(join(dir, `s${n}.ts`), recordingSpider(`S${n}`, `s${n}`));
    const registry = registryOf(dir);
    const [one, two] = await Promise.all([names(registry), names(registry)]);
    assert.deepEqual([one, two], [["s1", "s2"], ["s1", "s2"]]);
    assert.equal((await imports(dir)).length, 2);
  });
});
