/**
 * A first run downloads what the command runs and nothing more (issue: 136 npm packages for the demo, Chromium's
 * driver, the Redis and PostgreSQL clients and the job server's framework among them).
 *
 * The test gives Deno a cache directory holding only the packages a plain crawl's code can reach and runs the crawl
 * with `--cached-only`: a crawl that asked for anything else (the whole lockfile, or a package behind an optional
 * part) fails with "not cached" instead of downloading. No network is used. Cost: about 5 s (a `deno info` of the
 * command line and one crawl of 3 books).
 */
import assert from "node:assert/strict";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI_PATH, REPO_ROOT } from "../helpers/cli.ts";
import { runCommand } from "../helpers/command.ts";
import { type ModuleGraph, moduleGraph } from "../helpers/module_graph.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { literalImports } from "../../scripts/npm/literal_imports.ts";

/** Packages only an optional part uses: none may be in a plain crawl's code graph. */
const OPTIONAL = ["puppeteer-core", "ioredis", "postgres", "ajv", "hono", "croner", "hyparquet-writer", "aws4fetch"];

/** The npm packages (name@version) the code of `graph` imports, following code imports only (not `import type`). */
function packagesRunBy(graph: ModuleGraph): Set<string> {
  const modules = new Map(graph.modules.map((module) => [module.specifier, module]));
  const roots = new Set<string>();
  const seen = new Set<string>();
  const queue = [...graph.roots];
  while (queue.length > 0) {
    const specifier = queue.pop()!;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dependency of modules.get(specifier)?.dependencies ?? []) {
      const code = dependency.code?.specifier;
      if (!code) continue;
      const target = graph.redirects[code] ?? code;
      if (target.startsWith("npm:/")) {
        const parts = target.slice("npm:/".length).split("/");
        roots.add(parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]);
      } else if (target.startsWith("file:")) queue.push(target);
    }
  }
  // With what those packages depend on.
  const all = new Set<string>();
  const stack = [...roots];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (all.has(id)) continue;
    all.add(id);
    stack.push(...(graph.npmPackages[id]?.dependencies ?? []));
  }
  return all;
}

const nameOf = (id: string) => id.slice(0, id.lastIndexOf("@"));

Deno.test("netweir crawl's code imports none of the packages only an optional part needs", async () => {
  const run = packagesRunBy(await moduleGraph(CLI_PATH));
  assert.ok([...run].some((id) => nameOf(id) === "htmlparser2"), "the graph was read: the HTML parser is in it");
  for (const name of OPTIONAL) {
    assert.ok(![...run].some((id) => nameOf(id) === name), `${name} is loaded by a plain crawl`);
  }
});

Deno.test("a first crawl downloads only the packages a plain crawl runs", async () => {
  const graph = await moduleGraph(CLI_PATH);
  const needed = packagesRunBy(graph);
  const denoDir = await mkdtemp(join(tmpdir(), "netweir-first-run-"));
  const site = await startFixtureSite({ books: 3 });
  try {
    // The packages' metadata for every package of the lockfile (Deno reads it to build the resolution), and the
    // contents of the needed ones only.
    const cache = join(denoDir, "npm", "registry.npmjs.org");
    for (const [id, info] of Object.entries(graph.npmPackages)) {
      const source = join(info.localPath, "..");
      await mkdir(join(cache, info.name), { recursive: true });
      const metadata = join(source, "registry.json");
      if (await stat(metadata).then(() => true, () => false)) {
        await cp(metadata, join(cache, info.name, "registry.json"), { force: true });
      }
      if (needed.has(id)) await cp(info.localPath, join(cache, info.name, info.version), { recursive: true });
    }
    const out = join(denoDir, "books.jsonl");
    const ran = await runCommand(
      Deno.execPath(),
      ["run", "--cached-only", "-A", CLI_PATH, "crawl", join(REPO_ROOT, "examples", "books.ts")].concat(
        ["-a", `site=${site.url}shop/`, "-o", out],
      ),
      { cwd: REPO_ROOT, env: { ...Deno.env.toObject(), DENO_DIR: denoDir, NO_COLOR: "1" } },
    );
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal((await readFile(out, "utf8")).trim().split("\n").length, 3);
    assert.ok(needed.size < 20, `a plain crawl needs ${needed.size} packages: ${[...needed].join(", ")}`);
  } finally {
    await site.close();
    await rm(denoDir, { recursive: true, force: true });
  }
});

Deno.test("the npm build turns each optional import back into a literal import()", () => {
  const emitted = [
    `const { BrowserFetcher } = await importOwnModule(import.meta.url, "../browser/fetcher.ts");`,
    `const { Redis } = await importPackage("npm:ioredis@5.9.2");`,
    `const sdk = await importPackage("npm:@scope/name@1.0.0");`,
    `const m = await importOwnModule(\n  import.meta.url,\n  "./parquet_file.ts",\n);`,
  ].join("\n");
  const { text, calls } = literalImports(emitted);
  assert.equal(calls, 4);
  assert.equal(
    text,
    [
      `const { BrowserFetcher } = await import("../browser/fetcher.js");`,
      `const { Redis } = await import("ioredis");`,
      `const sdk = await import("@scope/name");`,
      `const m = await import("./parquet_file.js");`,
    ].join("\n"),
  );
});

Deno.test("each package loaded on use is the version deno.json pins", async () => {
  const imports: Record<string, string> = JSON.parse(await readFile(join(REPO_ROOT, "deno.json"), "utf8")).imports;
  const pinned = new Set(Object.values(imports));
  let found = 0;
  for (const entry of await readdir(join(REPO_ROOT, "src"), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name === "optional_module.ts") continue;
    const text = await readFile(join(entry.parentPath, entry.name), "utf8");
    for (const [, specifier] of text.matchAll(/importPackage\b.*?\(\s*"(npm:[^"]+)"/g)) {
      found++;
      assert.ok(pinned.has(specifier), `${entry.name}: ${specifier} is not what deno.json's imports pin`);
    }
  }
  assert.ok(found >= 4, `only ${found} importPackage calls found`);
});
