/**
 * The guide's shell blocks as written: every ```sh block of docs/ whose every line is a `mkdir` or a `netweir crawl` of
 * one of the guide's own spiders (spiders/..., written by the TypeScript examples of the pages), with nothing that
 * needs the internet or a service (a proxy, a bucket, Redis) or a program besides netweir, is run line by line with
 * `sh`, in a project holding those spiders, against the example shop served on 127.0.0.1 in place of
 * http://127.0.0.1:8000/. `netweir` is this checkout's command. Each line must exit with 0: before, a checkpoint under
 * a folder that did not exist (docs/crawling.md) and a feed in one (docs/output.md) failed as written.
 */
import assert from "node:assert/strict";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serveDirectory } from "../../scripts/demo.ts";
import { runtime } from "../../src/runtime/mod.ts";
import { CLI_PATH, REPO_ROOT } from "../helpers/cli.ts";
import { runCommand } from "../helpers/command.ts";
import { guideExamples, writeProject } from "../helpers/doc_blocks.ts";

interface ShellBlock {
  page: string;
  lines: string[];
}

/** A line that runs offline, here: a mkdir, or a crawl of a guide spider with no address beyond 127.0.0.1. */
function runsOffline(line: string): boolean {
  if (/^mkdir -p [\w./-]+(\s+#.*)?$/.test(line)) return true;
  return /^netweir crawl spiders\/\S+\.ts\b/.test(line) && !/s3:\/\/|gs:\/\/|redis:\/\/|10\.0\.0\.|[|<>]/.test(line);
}

async function shellBlocks(): Promise<{ runnable: ShellBlock[]; skipped: number }> {
  const runnable: ShellBlock[] = [];
  let skipped = 0;
  const dir = join(REPO_ROOT, "docs");
  for (const name of (await readdir(dir)).filter((file) => file.endsWith(".md")).sort()) {
    const text = await readFile(join(dir, name), "utf8");
    for (const match of text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)) {
      const lines = match[1].split("\n").filter((line) => line.trim() !== "");
      if (lines.every(runsOffline)) runnable.push({ page: `docs/${name}`, lines });
      else skipped++;
    }
  }
  return { runnable, skipped };
}

Deno.test({
  name: "every shell block of the guide that can run offline runs as written, each line exiting with 0",
  ignore: runtime.name !== "deno",
}, async () => {
  const { runnable } = await shellBlocks();
  assert.ok(runnable.length >= 5, `only ${runnable.length} blocks run offline`);
  const pages = runnable.map((block) => block.page);
  for (const page of ["docs/crawling.md", "docs/output.md"]) assert.ok(pages.includes(page), `no block of ${page}`);
  const server = await serveDirectory(fileURLToPath(new URL("../../examples/site", import.meta.url)));
  const root = await mkdtemp(join(tmpdir(), "netweir-shell-docs-"));
  try {
    // `netweir` on PATH is this checkout's command, run as the other tests run it.
    const bin = join(root, "bin");
    await mkdir(bin);
    const self = runtime.selfCommand(CLI_PATH);
    const quoted = [self.command, ...self.args].map((word) => `'${word}'`).join(" ");
    await writeFile(join(bin, "netweir"), `#!/bin/sh\nexec ${quoted} "$@"\n`);
    await chmod(join(bin, "netweir"), 0o755);
    const env = { ...runtime.environment(), PATH: `${bin}:${runtime.env("PATH")}` };
    const found = await guideExamples();
    for (const [index, block] of runnable.entries()) {
      // A project of its own for each block: what one block makes (a checkpoint, a cache) is not another's.
      const project = join(root, `block-${index}`);
      await mkdir(project);
      await writeProject(project, found, server.url);
      for (const line of block.lines) {
        const ran = await runCommand("sh", ["-c", line], { cwd: project, env });
        assert.equal(ran.code, 0, `${block.page}: ${line}\n${ran.stderr}`);
      }
    }
  } finally {
    await server.close();
    await rm(root, { recursive: true, force: true });
  }
});
