/**
 * The user guide's TypeScript examples are real: every ```ts block in docs/ whose first line names a file
 * (`// spiders/books.ts`) is written into a project, type-checked against the library, and the spiders among them are
 * crawled against the example shop (examples/site), served on 127.0.0.1 in place of the http://127.0.0.1:8000/ the
 * pages use.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serveDirectory } from "../../scripts/demo.ts";
import { runtime } from "../../src/runtime/mod.ts";
import { CLI_PATH, runCli, runScript } from "../helpers/cli.ts";
import { type Example, guideExamples, writeProject } from "../helpers/doc_blocks.ts";

/** Runs the Deno that runs these tests with `args` in `cwd`. */
function runDeno(args: string[], cwd: string): Promise<{ code: number | null; stderr: string }> {
  const deno = runtime.selfCommand(CLI_PATH).command;
  return new Promise((resolve, reject) => {
    const child = spawn(deno, args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => stderr += chunk);
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

async function withProject(fn: (dir: string, shop: string, found: Example[]) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "netweir-docs-"));
  const server = await serveDirectory(fileURLToPath(new URL("../../examples/site", import.meta.url)));
  try {
    const found = await guideExamples();
    await writeProject(dir, found, server.url);
    await fn(dir, server.url, found);
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

Deno.test({
  name: "every named TypeScript example in the guide type-checks against the library",
  ignore: runtime.name !== "deno",
}, async () => {
  await withProject(async (dir, _shop, found) => {
    assert.ok(found.length >= 10, `only ${found.length} examples found`);
    const files = new Set(found.map((example) => example.file));
    assert.equal(files.size, found.length, "two examples name the same file");
    const checked = await runDeno(["check", ...files], dir);
    assert.equal(checked.code, 0, checked.stderr);
  });
});

Deno.test({
  name: "every spider in the guide crawls the example shop, ends with status 0 and writes items",
  ignore: runtime.name !== "deno",
}, async () => {
  await withProject(async (dir, _shop, found) => {
    const spiders = found.filter((example) => example.file.startsWith("spiders/"));
    assert.ok(spiders.length >= 8, `only ${spiders.length} spiders found`);
    for (const spider of spiders) {
      const out = join(dir, "out.jsonl");
      const result = await runCli(["crawl", spider.file, "-O", out, "-s", "retries=0"], { cwd: dir });
      assert.equal(result.code, 0, `${spider.page}: ${spider.file}\n${result.stderr}`);
      const items = (await readFile(out, "utf8")).split("\n").filter((line) => line !== "");
      assert.ok(items.length > 0, `${spider.file} wrote no items\n${result.stderr}`);
      assert.match(result.stderr, /"finish_reason":"finished"/, spider.file);
    }
  });
});

Deno.test({
  name: "the guide's scripts that run a crawl from code print its finish reason",
  ignore: runtime.name !== "deno",
}, async () => {
  await withProject(async (dir, _shop, found) => {
    const scripts = found.filter((example) =>
      !example.file.startsWith("spiders/") && /\brun\(|runSpider\(/.test(example.code)
    );
    assert.ok(scripts.length >= 2, `only ${scripts.length} scripts found`);
    for (const script of scripts) {
      const result = await runScript(join(dir, script.file), [], { cwd: dir });
      assert.equal(result.code, 0, `${script.page}: ${script.file}\n${result.stderr}`);
      assert.match(result.stdout, /^max_pages \d+\n$/, script.file);
    }
  });
});
