/**
 * The public API's examples run: every ```ts block in the JSDoc of src/ (those not marked `ignore`) is type-checked
 * and run by `deno test --doc`, here, so that the suite fails when an example stops working. The files are found by
 * looking for such blocks, so a new example is run without anyone adding it to a list. Examples that crawl serve
 * their own pages on 127.0.0.1 or build a Page from HTML; nothing leaves the machine.
 */
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { runtime } from "../../src/runtime/mod.ts";
import { REPO_ROOT } from "../helpers/cli.ts";
import { runCommand } from "../helpers/command.ts";

/** A code block that `deno test --doc` runs: a JSDoc line opening ```ts with no `ignore`. */
const RUNNABLE = /^\s*\*\s*```(?:ts|typescript)\s*$/m;

/** The .ts files under `dir`, recursively. */
async function tsFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir, { recursive: true });
  return names.filter((name) => name.endsWith(".ts")).map((name) => join(dir, name));
}

/** The files of src/ and the entry points whose JSDoc holds a runnable example, relative to the repository. */
async function filesWithExamples(): Promise<string[]> {
  const candidates = [
    ...await tsFiles(join(REPO_ROOT, "src")),
    ...["mod.ts", "serve.ts", "cli.ts"].map((name) => join(REPO_ROOT, name)),
  ];
  const found: string[] = [];
  for (const file of candidates) {
    if (RUNNABLE.test(await readFile(file, "utf8"))) found.push(relative(REPO_ROOT, file));
  }
  return found.sort();
}

Deno.test("the examples of the public API run", async () => {
  const files = await filesWithExamples();
  // The eight the API is documented with, at least: Spider, Page, Request, Rule, Settings, Crawl, runSpider, Queue.
  for (
    const file of [
      "src/spider/spider.ts",
      "src/spider/page.ts",
      "src/spider/request.ts",
      "src/spider/rule.ts",
      "src/settings/settings.ts",
      "src/engine/crawl.ts",
      "src/run.ts",
      "src/queue/queue.ts",
    ]
  ) assert.ok(files.includes(file), `${file} has a runnable example`);
  const deno = runtime.selfCommand("mod.ts").command;
  const { code, stdout, stderr } = await runCommand(deno, ["test", "-A", "--doc", ...files], { cwd: REPO_ROOT });
  // Deno colours its report; the colour codes are taken out to read the summary line.
  // deno-lint-ignore no-control-regex
  const text = (stdout + stderr).replace(/\x1b\[[0-9;]*m/g, "");
  assert.equal(code, 0, text.slice(-4000));
  const summary = /ok \| (\d+) passed \| 0 failed/.exec(text);
  assert.ok(summary, text.slice(-2000));
  assert.ok(Number(summary[1]) >= files.length, `every file's examples ran: ${summary[0]}`);
});

Deno.test("the search for examples tells a runnable block from an ignored one", () => {
  assert.ok(RUNNABLE.test("/**\n * @example\n * ```ts\n * run();\n * ```\n */"));
  assert.ok(!RUNNABLE.test("/**\n * ```ts ignore\n * run();\n * ```\n */"));
  assert.ok(!RUNNABLE.test("// ```ts"));
});
