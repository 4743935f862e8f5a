/**
 * The npm build as a user gets it: built, packed with `npm pack`, installed into an empty project with
 * `npm install --offline` (scripts/test_setup.ts filled npm's cache), and run with Node 22 from .cache/node22.
 *
 * Building, packing and installing take one to three minutes, and a dozen tests in several files need the package:
 * so it is done once per state of the sources, into .cache/npm-package/KEY (KEY from tests/helpers/npm_build_key.ts,
 * a hash of every file the build reads), and each test gets a project of its own whose node_modules is a hard-linked
 * copy of that install: the tests write their spiders and outputs beside node_modules, never into it. Builds are
 * taken one at a time (a lock in .cache), since every build rewrites npm/dist.
 */
import { mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { buildNpm } from "../../scripts/build_npm.ts";
import { CACHE, NODE22 } from "../../scripts/test_setup.ts";
import { type Ran, runCommand } from "./command.ts";
import { npmBuildKey } from "./npm_build_key.ts";

export { NODE22 };

export { type Ran, runCommand };

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** One directory per build key: the packed tarball and a project with it installed. */
const BUILDS = join(CACHE, "npm-package");
/** Written last into a build's directory: one without it was cut short, and is made again. */
const COMPLETE = "complete";
const PROJECT_PACKAGE_JSON = JSON.stringify({ private: true, type: "module" });

/** An empty project with the packed build installed; `netweir(args)` runs its bin with Node 22. */
export interface InstalledPackage {
  dir: string;
  /** Runs the package's bin; `env` adds variables to the environment (NODE_EXTRA_CA_CERTS). */
  netweir(args: string[], env?: Record<string, string>): Promise<Ran>;
  node(args: string[]): Promise<Ran>;
  remove(): Promise<void>;
}

/** Held while one test builds npm/dist, packs and installs it: test files run in parallel. */
const BUILD_LOCK = join(CACHE, "npm-build.lock");
/** The holder touches the lock this often, so that a lock left by a killed test is told from a slow build. */
const LOCK_HEARTBEAT_MS = 10_000;
const STALE_LOCK_MS = 60_000;

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
  const heartbeat = setInterval(() => {
    const now = new Date();
    utimes(BUILD_LOCK, now, now).catch(() => {});
  }, LOCK_HEARTBEAT_MS);
  try {
    return await body();
  } finally {
    clearInterval(heartbeat);
    await rm(BUILD_LOCK, { recursive: true, force: true });
  }
}

/** Builds, packs and installs the package into `dir`, which then holds the tarball and `project/node_modules`. */
async function buildPackInstall(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  const project = join(dir, "project");
  await mkdir(project, { recursive: true });
  const dist = await buildNpm();
  const pack = await runCommand("npm", ["pack", dist, "--pack-destination", dir], { cwd: dir });
  if (pack.code !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
  const tarball = pack.stdout.trim().split("\n").pop()!;
  await writeFile(join(project, "package.json"), PROJECT_PACKAGE_JSON);
  const install = await runCommand(
    "npm",
    ["install", "--offline", "--no-audit", "--no-fund", join(dir, tarball)],
    { cwd: project },
  );
  if (install.code !== 0) throw new Error(`npm install of the package failed: ${install.stderr}`);
  await writeFile(join(dir, COMPLETE), "");
}

/** The directory of the current sources' build, made if no complete one is there; older builds are removed. */
async function currentBuild(): Promise<string> {
  const key = await npmBuildKey(ROOT);
  const dir = join(BUILDS, key);
  if (await stat(join(dir, COMPLETE)).then(() => true, () => false)) return dir;
  return await withBuildLock(async () => {
    // Another test may have made it while this one waited for the lock.
    if (await stat(join(dir, COMPLETE)).then(() => true, () => false)) return dir;
    for (const old of await readdir(BUILDS).catch(() => [])) {
      if (old !== key) await rm(join(BUILDS, old), { recursive: true, force: true });
    }
    await buildPackInstall(dir);
    return dir;
  });
}

export async function installBuiltPackage(): Promise<InstalledPackage> {
  const build = await currentBuild();
  const dir = await mkdtemp(join(tmpdir(), "netweir-npm-"));
  await writeFile(join(dir, "package.json"), PROJECT_PACKAGE_JSON);
  // Hard links: the installed files themselves, in this project's own tree, in a second rather than npm's minute.
  // A copy where the temporary directory is on another file system.
  const from = join(build, "project", "node_modules");
  const to = join(dir, "node_modules");
  const linked = await runCommand("cp", ["-al", from, to]);
  if (linked.code !== 0) {
    await rm(to, { recursive: true, force: true });
    const copied = await runCommand("cp", ["-a", from, to]);
    if (copied.code !== 0) throw new Error(`copying the installed package failed: ${copied.stderr}`);
  }
  const bin = join(dir, "node_modules", "netweir", "cli.js");
  // The user's cache folder in the project: the JavaScript Node strips out of .ts spiders is kept there, not in the
  // home of whoever runs the tests.
  const env = { ...process.env, XDG_CACHE_HOME: join(dir, ".cache") };
  return {
    dir,
    netweir: (args, extra = {}) => runCommand(NODE22, [bin, ...args], { cwd: dir, env: { ...env, ...extra } }),
    node: (args) => runCommand(NODE22, args, { cwd: dir, env }),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
