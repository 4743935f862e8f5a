/** --project: names and paths checked at start-up, spiders read afresh in separate processes. */
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createProjectRegistry } from "../../src/serve/projects.ts";
import { FIXTURES, withTempDir } from "./_setup.ts";

const SPIDER_MODULE = new URL("../../src/spider/spider.ts", import.meta.url).href;

function spiderSource(className: string, name: string): string {
  return `import { Spider } from ${JSON.stringify(SPIDER_MODULE)};\n` +
    `export class ${className} extends Spider {\n  override name = ${JSON.stringify(name)};\n}\n`;
}

Deno.test("a bare path is named after its directory or its file without the extension", () => {
  const registry = createProjectRegistry(["shop/", "news/feeds.ts"], FIXTURES);
  assert.deepEqual(registry.names(), ["shop", "feeds"]);
  assert.deepEqual(registry.get("shop"), {
    name: "shop",
    path: join(FIXTURES, "shop"),
    dir: join(FIXTURES, "shop"),
  });
  assert.deepEqual(registry.get("feeds"), {
    name: "feeds",
    path: join(FIXTURES, "news", "feeds.ts"),
    dir: join(FIXTURES, "news"),
  });
});

Deno.test("NAME=PATH names a project, and names are looked up ignoring case", () => {
  const registry = createProjectRegistry(["Shop=shop", `news=${join(FIXTURES, "news", "feeds.ts")}`], FIXTURES);
  assert.deepEqual(registry.names(), ["Shop", "news"]);
  assert.equal(registry.get("SHOP")?.name, "Shop");
  assert.equal(registry.get("shop")?.path, join(FIXTURES, "shop"));
  assert.equal(registry.get("NEWS")?.dir, join(FIXTURES, "news"));
  assert.equal(registry.get("other"), undefined);
});

Deno.test("two projects whose names differ only in case are refused", () => {
  assert.throws(
    () => createProjectRegistry(["shop=shop", "SHOP=news"], FIXTURES),
    (error: Error) => error instanceof TypeError && /the name SHOP is already taken .*ignore case/.test(error.message),
  );
  assert.throws(() => createProjectRegistry(["shop", "shop=news"], FIXTURES), TypeError);
});

Deno.test("a path that does not exist is refused, naming it", () => {
  assert.throws(
    () => createProjectRegistry(["shop=no/such/dir"], FIXTURES),
    { name: "TypeError", message: "--project shop=no/such/dir: no such file or directory: no/such/dir" },
  );
});

Deno.test("a name that is not letters, digits, ., _ and - from a letter or digit is refused", () => {
  for (const spec of ["-x=shop", ".x=shop", "a b=shop", "a/b=shop", "=shop", "ü=shop"]) {
    assert.throws(() => createProjectRegistry([spec], FIXTURES), TypeError, spec);
  }
  assert.throws(() => createProjectRegistry(["shop="], FIXTURES), /no path given/);
  assert.doesNotThrow(() => createProjectRegistry(["a.b_c-1=shop"], FIXTURES));
});

Deno.test("a bare path whose name cannot be a project name is refused with a hint to name it", async () => {
  await withTempDir(async (dir) => {
    await mkdir(join(dir, "my spiders"));
    assert.throws(
      () => createProjectRegistry(["my spiders"], dir),
      (error: Error) =>
        error instanceof TypeError && /name it yourself with --project NAME=my spiders/.test(error.message),
    );
  });
});

Deno.test("a directory's spiders are its top-level files' spiders; a broken file is reported by name, masked", async () => {
  const registry = createProjectRegistry(["shop"], FIXTURES);
  const { spiders, errors } = await registry.spiders("SHOP");
  assert.deepEqual(spiders.map((spider) => [spider.name, spider.file]), [
    ["books", join(FIXTURES, "shop", "books.ts")],
    ["plain", join(FIXTURES, "shop", "plain.ts")],
  ]);
  // shop/lib/helper.ts throws if imported: a subdirectory is never read.
  assert.deepEqual(errors, [{ file: "broken.ts", error: "cannot reach redis://:***@127.0.0.1:1/0 while loading" }]);
});

Deno.test("each spider comes with its own settings and profiles, to check a job's settings against", async () => {
  const registry = createProjectRegistry(["shop"], FIXTURES);
  const books = (await registry.spiders("shop")).spiders.find((spider) => spider.name === "books")!;
  assert.deepEqual(books.settings, { proxies: ["http://127.0.0.1:9"], concurrency: 4 });
  assert.deepEqual(books.profiles, {
    gentle: { concurrency: 1, minDelay: 2, maxDelay: 5 },
    slowstats: { statsInterval: 60 },
  });
});

Deno.test("a one-file project's spiders are that file's", async () => {
  const registry = createProjectRegistry(["news=news/feeds.ts"], FIXTURES);
  const { spiders, errors } = await registry.spiders("news");
  assert.deepEqual(spiders.map((spider) => spider.name), ["feeds", "<img src=x onerror=alert(1)>"]);
  assert.deepEqual(errors, []);
});

Deno.test("an edited or added spider file is seen the next time spiders are read", async () => {
  await withTempDir(async (dir) => {
    await writeFile(join(dir, "one.ts"), spiderSource("One", "first"));
    const registry = createProjectRegistry([`mine=${dir}`], "/");
    assert.deepEqual((await registry.spiders("mine")).spiders.map((spider) => spider.name), ["first"]);
    await writeFile(join(dir, "one.ts"), spiderSource("One", "renamed"));
    await writeFile(join(dir, "two.ts"), spiderSource("Two", "second"));
    assert.deepEqual((await registry.spiders("mine")).spiders.map((spider) => spider.name), ["renamed", "second"]);
  });
});

Deno.test("a project directory removed while serving gives an error, not a crash", async () => {
  let registry: ReturnType<typeof createProjectRegistry> | undefined;
  await withTempDir((dir) => {
    registry = createProjectRegistry([`gone=${dir}`], "/");
    return Promise.resolve();
  });
  const { spiders, errors } = await registry!.spiders("gone");
  assert.deepEqual(spiders, []);
  assert.equal(errors.length, 1);
  assert.match(errors[0].error, /no such file or directory/);
});
