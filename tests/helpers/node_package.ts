/**
 * The npm build as a user gets it: built, packed with `npm pack`, installed into an empty project with
 * `npm install --offline` (scripts/test_setup.ts filled npm's cache), and run with Node 22 from .cache/node22.
 * Builds are taken one at a time (a lock in .cache), since every build rewrites npm/dist.
 */
import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildNpm } from "../../scripts/build_npm.ts";
import { CACHE, NODE22 } from "../../scripts/test_setup.ts";
import { type Ran, runCommand } from "./command.ts";

export { NODE22 };

export { type Ran, runCommand };

/** An empty project with the packed build installed; `netweir(args)` runs its bin with Node 22. */
export interface InstalledPackage {
  dir: string;
  netweir(args: string[]): Promise<Ran>;
  node(args: string[]): Promise<Ran>;
  remove(): Promise<void>;
}

/** Held while one test builds npm/dist and packs it: test files run in parallel, and each build replaces it. */
const BUILD_LOCK = join(CACHE, "npm-build.lock");
/** A lock older than this was left by a test that was killed; nothing holds it for long. */
const STALE_LOCK_MS = 5 * 60_000;

/** Runs `body` while holding the build lock (a directory: creating one is atomic, across processes too). */
async function withBuildLock<T>(body: () => Promise<T>): Promise<T> {
  await mkdir(CACHE, { recursive: true });
  for (;;) {
    try {
      await mkdir(BUILD_LOCK);
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== "EEXIST") throw error;
      const since = await stat(BUILD_LOCK).then((info) => Date.now() - info.mtimeMs, () => 0);
      if (since > STALE_LOCK_MS) await rm(BUILD_LOCK, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  try {
    return await body();
  } finally {
    await rm(BUILD_LOCK, { recursive: true, force: true });
  }
}

export async function installBuiltPackage(): Promise<InstalledPackage> {
  const dir = await mkdtemp(join(tmpdir(), "netweir-npm-"));
  const pack = await withBuildLock(async () => {
    const dist = await buildNpm();
    return await runCommand("npm", ["pack", dist, "--pack-destination", dir], { cwd: dir });
  });
  if (pack.code !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
  const tarball = pack.stdout.trim().split("\n").pop()!;
  await writeFile(join(dir, "package.json"), JSON.stringify({ private: true, type: "module" }));
  const install = await runCommand(
    "npm",
    ["install", "--offline", "--no-audit", "--no-fund", join(dir, tarball)],
    { cwd: dir },
  );
  if (install.code !== 0) throw new Error(`npm install of the package failed: ${install.stderr}`);
  const bin = join(dir, "node_modules", "netweir", "cli.js");
  return {
    dir,
    netweir: (args) => runCommand(NODE22, [bin, ...args], { cwd: dir }),
    node: (args) => runCommand(NODE22, args, { cwd: dir }),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
