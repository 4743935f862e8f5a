/**
 * A SIGTERM to the process a user, `timeout` or a service manager started: `npx netweir crawl ...` (npm, a shell,
 * Netweir) and `npx deno task crawl ...` (npm, a shell, `deno task`, Deno). npm passes the signal to the shell, which
 * dies of it without passing it on: before, npm exited with 143 and the crawl ran on. Now the crawl notices that a
 * process which started it has ended and stops cleanly, as for SIGTERM: its feed closed, its stats written.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { runtime } from "../../src/runtime/mod.ts";
import { fileURLToPath } from "node:url";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { installBuiltPackage, NODE22 } from "../helpers/node_package.ts";
import { processExists, sendSignal } from "../helpers/signal.ts";
import { waitUntil } from "../helpers/wait.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Slow pages without end; once it has a page, it writes its process id where the test reads it. */
const SPIDER = `import { writeFileSync } from "node:fs";
import process from "node:process";
import { Request, Spider } from "netweir";

export class Slow extends Spider {
  async *start() {
    for (let i = 0; i < 100000; i++) yield new Request({ url: process.env.SITE + "slow?ms=300&page=" + i });
  }
  parse(page) {
    writeFileSync(process.env.PID_FILE, String(process.pid));
    return { url: page.url };
  }
}
`;

/** Waits for a child's exit status (a signal's as the shell gives it: 128 + its number). */
function exitStatus(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once("exit", (code, signal) => resolve(code ?? 128 + (signal === "SIGTERM" ? 15 : 2)));
  });
}

/**
 * Starts `command` (an npx line), waits for the crawl under it to fetch, sends SIGTERM to the npx process, and
 * checks that the crawl ends cleanly: its pid gone, items.json a whole JSON array, stats saying "shutdown".
 */
async function sigtermToLauncher(
  cwd: string,
  dir: string,
  [command, ...args]: string[],
  env: Record<string, string>,
) {
  const pidFile = join(dir, "crawl.pid");
  const items = join(dir, "items.json");
  const stats = join(dir, "stats.json");
  const npx = spawn(command, [...args, "-O", items, "--stats-file", stats], {
    cwd,
    env: { ...env, PID_FILE: pidFile },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  npx.stderr!.setEncoding("utf8").on("data", (chunk: string) => stderr += chunk);
  const exited = exitStatus(npx);
  let crawlPid = 0;
  try {
    crawlPid = await waitUntil(
      "the crawl's pid",
      () => readFile(pidFile, "utf8").then(Number, () => undefined),
      60_000,
    );
    await sendSignal(npx.pid!, "SIGTERM");
    assert.equal(await exited, 143, stderr);
    // 20 s is a guard: the crawl stops within a second of npx's end, and before the fix it never did.
    const ended = await waitUntil("the crawl's end", async () => !(await processExists(crawlPid)), 20_000, 100)
      .catch(() => false);
    assert.ok(ended, `the crawl (pid ${crawlPid}) runs on after ${command} was sent SIGTERM\n${stderr}`);
    assert.equal(JSON.parse(await readFile(stats, "utf8")).finish_reason, "shutdown", stderr);
    assert.ok(JSON.parse(await readFile(items, "utf8")).length > 0, stderr);
  } finally {
    npx.kill("SIGKILL");
    if (crawlPid && await processExists(crawlPid)) await sendSignal(crawlPid, "SIGKILL");
  }
}

Deno.test("a SIGTERM to npx netweir crawl stops the crawl under it cleanly", async () => {
  const site = await startFixtureSite();
  const pkg = await installBuiltPackage();
  try {
    await writeFile(join(pkg.dir, "slow.mjs"), SPIDER);
    // npx and the bin's `#!/usr/bin/env node` find Node 22 first on PATH.
    const env = {
      ...runtime.environment(),
      PATH: `${dirname(NODE22)}:${runtime.env("PATH")}`,
      SITE: site.url,
    } as Record<
      string,
      string
    >;
    await sigtermToLauncher(pkg.dir, pkg.dir, ["npx", "--offline", "netweir", "crawl", "slow.mjs"], env);
  } finally {
    await pkg.remove();
    await site.close();
  }
});

Deno.test("a SIGTERM to npx deno task crawl stops the crawl under it cleanly", async () => {
  const site = await startFixtureSite();
  const dir = await Deno.makeTempDir({ prefix: "netweir-npx-deno-" });
  try {
    // Inside the repository, where `deno task crawl` is defined; the spider imports the sources by path.
    await writeFile(join(dir, "slow.ts"), SPIDER.replace('"netweir"', JSON.stringify(join(ROOT, "mod.ts"))));
    const env = { ...runtime.environment(), SITE: site.url };
    const deno = `deno@${Deno.version.deno}`;
    await sigtermToLauncher(ROOT, dir, ["npx", "--offline", "-y", deno, "task", "crawl", join(dir, "slow.ts")], env);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await site.close();
  }
});
