/**
 * `deno task build:npm`: the npm package in npm/dist. dnt cannot be installed where Netweir is built, so this does
 * its job with TypeScript's own compiler: every module reachable from the entries is emitted as an ES module with
 * its .d.ts (relative `.ts` imports rewritten to `.js`), src/runtime is pointed at Node's side only, and package.json
 * is generated from deno.json.
 */
import { spawn } from "node:child_process";
import { chmod, copyFile, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeImportsLiteral } from "./npm/literal_imports.ts";
import { type DenoConfig, distPath, packageJson } from "./npm/package_json.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const NPM_DIST = join(ROOT, "npm", "dist");
const TYPESCRIPT = "npm:typescript@5.9.3/tsc";

/** What src/runtime/mod.js says in the npm build: Node, and nothing that mentions Deno. */
const NODE_RUNTIME_MODULE = `/** The npm build runs on Node only: the runtime is picked at build time. */
import { nodeRuntime } from "./node.js";
export const runtime = nodeRuntime;
`;

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: "inherit" });
    child.on("error", reject);
    child.on("close", (code) => code === 0 ? resolve() : reject(new Error(`${command} ${args[0]} exited ${code}`)));
  });
}

async function compile(config: DenoConfig, DIST: string): Promise<void> {
  const tsconfig = {
    compilerOptions: {
      target: "ES2023",
      module: "ESNext",
      moduleResolution: "Bundler",
      allowImportingTsExtensions: true,
      rewriteRelativeImportExtensions: true,
      declaration: true,
      // deno check is the type check; here tsc only emits (it cannot see Deno's types or the npm packages).
      noCheck: true,
      isolatedModules: true,
      skipLibCheck: true,
      removeComments: false,
      outDir: DIST,
      rootDir: ROOT,
    },
    files: Object.values(config.exports).map((entry) => join(ROOT, entry)),
  };
  // Beside the output, not in npm/: two builds into different directories may run at once.
  const path = `${DIST}.tsconfig.json`;
  await writeFile(path, JSON.stringify(tsconfig, null, 2));
  try {
    await run(Deno.execPath(), ["run", "-A", "--quiet", TYPESCRIPT, "-p", path]);
  } finally {
    await rm(path, { force: true });
  }
}

async function pointRuntimeAtNode(DIST: string): Promise<void> {
  const runtimeDir = join(DIST, "src", "runtime");
  await writeFile(join(runtimeDir, "mod.js"), NODE_RUNTIME_MODULE);
  // Every Deno-only module of src/runtime (deno.ts and what only it imports: its socket, signal watch and worker
  // handle): the list written out once missed the ones added later.
  for (const file of await readdir(runtimeDir)) {
    if (/^deno(_\w+)?\.(js|d\.ts)$/.test(file)) await rm(join(runtimeDir, file), { force: true });
  }
}

async function makeCliExecutable(config: DenoConfig, DIST: string): Promise<void> {
  const cli = join(DIST, distPath(config.exports["./cli"]));
  const text = (await readFile(cli, "utf8")).replace(/^#!.*\n/, "");
  await writeFile(cli, "#!/usr/bin/env node\n" + text);
  await chmod(cli, 0o755);
}

/** Builds the package into `DIST` (npm/dist unless another directory is given) and returns that directory. */
export async function buildNpm(DIST: string = NPM_DIST): Promise<string> {
  const config = JSON.parse(await readFile(join(ROOT, "deno.json"), "utf8")) as DenoConfig;
  await rm(DIST, { recursive: true, force: true });
  await mkdir(DIST, { recursive: true });
  await compile(config, DIST);
  await pointRuntimeAtNode(DIST);
  // Every optional part Deno loads through a computed specifier (src/runtime/optional_module.ts): at least the
  // browser, Redis, PostgreSQL, ajv and the job server. Fewer means a call was written in a shape this misses.
  const literal = await makeImportsLiteral(DIST);
  if (literal < 8) {
    throw new Error(`only ${literal} optional imports made literal in the npm build; expected 8 or more`);
  }
  await makeCliExecutable(config, DIST);
  await writeFile(join(DIST, "package.json"), JSON.stringify(packageJson(config), null, 2) + "\n");
  await copyFile(join(ROOT, "npm", "README.md"), join(DIST, "README.md"));
  await copyFile(join(ROOT, "LICENSE"), join(DIST, "LICENSE"));
  return DIST;
}

if (import.meta.main) {
  const dist = await buildNpm();
  console.log(`npm package written to ${dist}`);
}
