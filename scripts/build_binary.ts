/**
 * `deno task build:binary`: dist/netweir, one executable holding Node 22 and the whole npm build, for machines with
 * no Deno, no Node and no node_modules. Built with Node's single executable applications (`deno compile` needs a
 * runtime download that cannot be had where Netweir is built): the npm build is bundled by esbuild into one CommonJS
 * file, which becomes an asset of a copy of Node 22 (from npm, as the tests use it) injected with postject.
 * See docs/design/cloud_and_binary.md for why each step is as it is.
 */
import { spawn } from "node:child_process";
import { access, chmod, copyFile, mkdir, realpath, rm, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildNpm } from "./build_npm.ts";
import {
  ENTRY_SOURCE,
  HOOKS_SOURCE,
  SEA_MAIN_SOURCE,
  WORKER_BOOT_SOURCE,
  WORKER_ENTRY_SOURCE,
  XPATH_LIBRARY_SOURCE,
} from "./binary/sources.ts";
import {
  BINARY_TOOLS as TOOLS,
  CACHE,
  ensureBinaryTools,
  ensureDependenciesCached,
  ensureNode22,
  NODE22,
} from "./test_setup.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
export const BINARY = join(ROOT, "dist", "netweir");
/** The marker Node looks for to know a binary carries an application (Node's documented value). */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

function run(command: string, args: string[], cwd = ROOT): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => stderr += chunk);
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.slice(0, 2).join(" ")} exited ${code}:\n${stderr.slice(-3000)}`));
    });
  });
}

/** One entry of the npm build bundled into one CommonJS file, dependencies included. */
async function bundle(dist: string, name: string, source: string, out: string): Promise<void> {
  const entry = join(dist, name);
  await writeFile(entry, source);
  // esbuild's package puts its native executable here (for this platform, from its optional dependency).
  const esbuild = join(TOOLS, "node_modules", "esbuild", "bin", "esbuild");
  await run(esbuild, [
    entry,
    "--bundle",
    "--platform=node",
    "--target=node22",
    "--format=cjs",
    `--outfile=${out}`,
    // The modules' own URL only ever names siblings that, in the binary, are not files; a fixed one keeps
    // `new URL(..., import.meta.url)` working.
    `--define:import.meta.url="file:///netweir-binary/npm/dist/${name}"`,
    "--log-level=error",
  ], ROOT).catch((error) => {
    throw new Error(`bundling ${name} failed: ${error.message}`);
  });
}

export async function buildBinary(): Promise<string> {
  await ensureNode22();
  await ensureDependenciesCached();
  await ensureBinaryTools();
  const work = join(ROOT, "dist", ".build");
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { recursive: true });
  // Its own copy of the npm build, so that npm/dist (which the npm package's tests build and install at the same
  // time) is left alone.
  const dist = await buildNpm(join(work, "npm"));
  // esbuild resolves the dependencies as Node would, from node_modules beside the npm build: the package's own
  // install (scripts/test_setup.ts keeps it in .cache/npm-deps), linked in for the bundling only.
  await symlink(join(CACHE, "npm-deps", "node_modules"), join(dist, "node_modules"), "dir");
  await writeFile(join(dist, "binary_hooks.js"), HOOKS_SOURCE);
  await writeFile(join(dist, "binary_xpath_library.js"), XPATH_LIBRARY_SOURCE);
  await bundle(dist, "binary_entry.js", ENTRY_SOURCE, join(work, "netweir.cjs"));
  await bundle(dist, "binary_worker.js", WORKER_ENTRY_SOURCE, join(work, "worker.cjs"));
  await writeFile(join(work, "sea_main.cjs"), SEA_MAIN_SOURCE);
  await writeFile(join(work, "worker_boot.cjs"), WORKER_BOOT_SOURCE);
  const config = {
    main: join(work, "sea_main.cjs"),
    output: join(work, "netweir.blob"),
    disableExperimentalSEAWarning: true,
    useSnapshot: false,
    useCodeCache: false,
    // The names src/runtime/node.ts reads the worker's two from.
    assets: {
      "netweir.cjs": join(work, "netweir.cjs"),
      "worker.cjs": join(work, "worker.cjs"),
      "worker_boot.cjs": join(work, "worker_boot.cjs"),
    },
  };
  await writeFile(join(work, "sea_config.json"), JSON.stringify(config, null, 2));
  await run(NODE22, ["--experimental-sea-config", join(work, "sea_config.json")]);
  await rm(BINARY, { force: true });
  await copyFile(await realpath(NODE22), BINARY);
  await chmod(BINARY, 0o755);
  const postject = join(TOOLS, "node_modules", "postject", "dist", "cli.js");
  await run(NODE22, [postject, BINARY, "NODE_SEA_BLOB", join(work, "netweir.blob"), "--sentinel-fuse", SEA_FUSE]);
  await rm(work, { recursive: true, force: true });
  return BINARY;
}

if (import.meta.main) {
  const started = Date.now();
  const binary = await buildBinary();
  await access(binary);
  const { size } = await stat(binary);
  console.log(
    `binary written to ${binary} (${(size / 1024 / 1024).toFixed(1)} MiB, ${
      ((Date.now() - started) / 1000).toFixed(0)
    } s)`,
  );
}
