/**
 * The guide's shell blocks as written. Every ```sh block of docs/ that can run on this machine alone is run, as one
 * bash script (`set -eo pipefail`, so each line and each command of a pipe must succeed), in a project holding the
 * guide's own spiders (the TypeScript examples that name their file) and examples/'s spiders:
 *
 * - commands: `netweir` (this checkout's command line) and local text tools (jq, grep, head, wc, cat, cd, mkdir...);
 * - addresses: the example shop, served on 127.0.0.1 in place of http://127.0.0.1:8000/, and a Redis the test starts
 *   on a free port in place of redis://127.0.0.1:6379/.
 *
 * The blocks of one page run in order in one project, as a reader following the page runs them.
 * A block that needs anything else (another host, a bucket, curl to a running service, a program to install, a
 * terminal) is left out, and counted: the test fails when fewer blocks run than it did when written, so a page that
 * stops running is noticed. A block the page says fails (`<!-- exits N -->` on the line before it) must exit with N.
 * Before, a checkpoint under a folder that did not exist (docs/crawling.md) and a feed in one (docs/output.md) failed
 * as written. Cost: about 60 s (some 30 crawls of the 315-page shop and a dozen short commands).
 */
import assert from "node:assert/strict";
import { chmod, copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serveDirectory } from "../../scripts/demo.ts";
import { runtime } from "../../src/runtime/mod.ts";
import { CLI_PATH, REPO_ROOT } from "../helpers/cli.ts";
import { runCommand } from "../helpers/command.ts";
import { guideExamples, writeProject } from "../helpers/doc_blocks.ts";
import { startRedis } from "../helpers/redis.ts";

interface ShellBlock {
  page: string;
  /** The block's lines, continuation lines (ending in `\`) joined. */
  lines: string[];
  /** The exit status the page says the block ends with (0 unless an `<!-- exits N -->` comment says). */
  exits: number;
}

const PAGE_SHOP = "http://127.0.0.1:8000/";
const PAGE_REDIS = "redis://127.0.0.1:6379/";

/** Programs a block may run besides netweir: text tools that work on what netweir wrote. */
const LOCAL_TOOLS = new Set(["jq", "grep", "head", "tail", "wc", "cat", "sort", "cd", "mkdir", "ls", "test"]);
/** Netweir's commands that need nothing beyond the shop and a local Redis (serve is a service: curl drives it). */
const NETWEIR_COMMANDS = new Set([
  "crawl",
  "fetch",
  "shell",
  "parse",
  "check",
  "settings",
  "list",
  "genspider",
  "startproject",
  "version",
  "queue",
]);

/** Whether one command of a line (between pipes, `&&` or `;`) runs here. */
function commandRunsHere(command: string): boolean {
  const words = command.trim().split(/\s+/);
  if (words[0] === "netweir") return NETWEIR_COMMANDS.has(words[1]);
  return LOCAL_TOOLS.has(words[0]);
}

/** Whether a text names no address but the shop's and the local Redis's. */
function addressesAreHere(text: string): boolean {
  return (text.match(/[a-z][a-z0-9+.-]*:\/\/[^\s"'`)]+/g) ?? [])
    .every((url) => url.startsWith(PAGE_SHOP) || url.startsWith(PAGE_REDIS));
}

/** Whether a line runs here: known commands only, and no address but the shop's and the local Redis's. */
function lineRunsHere(line: string): boolean {
  const code = line.replace(/\s+#.*$/, "");
  if (/\s&\s*$|\s&$/.test(code)) return false; // a command left running in the background
  return addressesAreHere(code) && code.split(/\|\|?|&&|;/).every(commandRunsHere);
}

/** A block's lines with `\` continuations joined. */
function joinContinuations(text: string): string[] {
  return text.replace(/\\\n\s*/g, " ").split("\n").filter((line) => line.trim() !== "");
}

/**
 * Whether every spider file a block names is there to run: one of the guide's examples (`known`), under examples/, or
 * made by the block itself (genspider, startproject). A page may show a command on a spider it does not write out
 * (`netweir crawl forms.ts ...`): an illustration, not something to run.
 */
function spidersAreThere(lines: string[], known: Map<string, string>): boolean {
  if (lines.some((line) => /^netweir (genspider|startproject) /.test(line))) return true;
  const named = lines.join("\n").match(/(?<=\s)[\w./-]+\.(?:ts|mjs|js)\b/g) ?? [];
  // A guide spider whose own code names another host (a queue on 10.0.0.5) does not run here either.
  // examples/books.ts crawls books.toscrape.com unless `-a site=` names the shop.
  const text = lines.join("\n");
  return named.every((file) =>
    file.startsWith("examples/")
      ? text.includes(`site=${PAGE_SHOP}`)
      : known.has(file) && addressesAreHere(known.get(file)!.replaceAll(PAGE_SHOP, ""))
  );
}

/**
 * examples/'s spiders, as a clone has them beside the project: they import "../mod.ts", which here re-exports this
 * checkout's library (a link would not do: the spider loader imports the path it is given, not where a link leads).
 */
async function copyExamples(project: string): Promise<void> {
  await mkdir(join(project, "examples"));
  for (const file of await readdir(join(REPO_ROOT, "examples"))) {
    if (file.endsWith(".ts")) await copyFile(join(REPO_ROOT, "examples", file), join(project, "examples", file));
  }
  await writeFile(join(project, "mod.ts"), `export * from ${JSON.stringify(join(REPO_ROOT, "mod.ts"))};\n`);
}

async function shellBlocks(): Promise<{ runnable: ShellBlock[]; skipped: ShellBlock[] }> {
  const known = new Map((await guideExamples()).map((example) => [example.file, example.code]));
  const runnable: ShellBlock[] = [];
  const skipped: ShellBlock[] = [];
  const dir = join(REPO_ROOT, "docs");
  for (const name of (await readdir(dir)).filter((file) => file.endsWith(".md")).sort()) {
    const text = await readFile(join(dir, name), "utf8");
    for (const match of text.matchAll(/(?:<!-- exits (\d+) -->\n\n?)?^```sh\n([\s\S]*?)^```$/gm)) {
      const block = { page: `docs/${name}`, lines: joinContinuations(match[2]), exits: Number(match[1] ?? 0) };
      const runs = block.lines.every(lineRunsHere) && spidersAreThere(block.lines, known);
      (runs ? runnable : skipped).push(block);
    }
  }
  return { runnable, skipped };
}

Deno.test("lines that need another host, a service or a program to install are told apart", () => {
  assert.ok(lineRunsHere("netweir crawl spiders/books.ts -o - | jq -r .title"));
  assert.ok(lineRunsHere("netweir fetch http://127.0.0.1:8000/ > listing.html"));
  assert.ok(lineRunsHere("netweir queue status redis://127.0.0.1:6379/0 Books"));
  assert.ok(!lineRunsHere("netweir crawl spiders/books.ts --queue redis://10.0.0.5:6379/0"));
  assert.ok(!lineRunsHere("netweir queue push redis://127.0.0.1:6379/0 Books https://books.toscrape.com/"));
  assert.ok(!lineRunsHere("curl http://127.0.0.1:6800/listjobs.json"));
  assert.ok(!lineRunsHere("netweir serve --project shop=examples/books.ts"));
  assert.ok(!lineRunsHere("chromium --headless --remote-debugging-port=9222 &"));
  assert.ok(!lineRunsHere('netweir crawl spiders/books.ts -o "s3://my-bucket/books.jsonl"'));
  const known = new Map([["spiders/books.ts", "startUrls = ['http://127.0.0.1:8000/']"], [
    "far.ts",
    "'http://10.0.0.5/'",
  ]]);
  assert.ok(spidersAreThere(["netweir crawl spiders/books.ts -o b.jsonl"], known));
  assert.ok(!spidersAreThere(["netweir crawl far.ts -o b.jsonl"], known), "a spider whose code names another host");
  assert.ok(!spidersAreThere(["netweir crawl forms.ts"], known), "a spider the guide does not write out");
  assert.ok(!spidersAreThere(["netweir crawl examples/books.ts -o - | jq -r .title"], known), "the internet's shop");
  assert.ok(spidersAreThere(["netweir crawl examples/books.ts -a site=http://127.0.0.1:8000/ -o b.jsonl"], known));
});

Deno.test({
  name: "every shell block of the guide that can run on this machine runs as written and exits as the page says",
  ignore: runtime.name !== "deno",
}, async () => {
  const { runnable, skipped } = await shellBlocks();
  // 25 ran when this test was written: a page whose blocks stop qualifying shows up here.
  assert.ok(
    runnable.length >= 25,
    `only ${runnable.length} blocks run (${skipped.length} need more than this machine)`,
  );
  const pages = new Set(runnable.map((block) => block.page));
  for (const page of ["docs/crawling.md", "docs/output.md", "docs/developing.md", "docs/distributed.md"]) {
    assert.ok(pages.has(page), `no block of ${page}`);
  }
  const server = await serveDirectory(fileURLToPath(new URL("../../examples/site", import.meta.url)));
  const redis = await startRedis();
  const root = await mkdtemp(join(tmpdir(), "netweir-shell-docs-"));
  try {
    // `netweir` on PATH is this checkout's command, run as the other tests run it.
    const bin = join(root, "bin");
    await mkdir(bin);
    const self = runtime.selfCommand(CLI_PATH);
    const quoted = [self.command, ...self.args].map((word) => `'${word}'`).join(" ");
    await writeFile(join(bin, "netweir"), `#!/bin/sh\nexec ${quoted} "$@"\n`);
    await chmod(join(bin, "netweir"), 0o755);
    const env = { ...runtime.environment(), PATH: `${bin}:${runtime.env("PATH")}`, NO_COLOR: "1" };
    const found = await guideExamples();
    const localRedis = redis.url.replace(/\/?\d*$/, "/");
    const projects = new Map<string, string>();
    for (const block of runnable) {
      // A project for each page: its blocks are steps of one walk-through (distributed.md's second terminal joins the
      // crawl of the first, and the next block counts what both wrote), and no page sees another's files.
      let project = projects.get(block.page);
      if (project === undefined) {
        project = join(root, block.page.replace(/\W/g, "-"));
        projects.set(block.page, project);
        await mkdir(project);
        await writeProject(project, found, server.url);
        await copyExamples(project);
      }
      const script = ["set -eo pipefail", ...block.lines].join("\n")
        .replaceAll(PAGE_SHOP, server.url)
        .replaceAll(PAGE_REDIS, localRedis);
      const ran = await runCommand("bash", ["-c", script], { cwd: project, env });
      assert.equal(ran.code, block.exits, `${block.page}:\n${block.lines.join("\n")}\n${ran.stderr.slice(-3000)}`);
    }
  } finally {
    await server.close();
    await redis.stop();
    await rm(root, { recursive: true, force: true });
  }
});
