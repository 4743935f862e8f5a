/**
 * Run by `deno task test` before the tests: installs what the npm package's tests need, so that the tests
 * themselves talk to nothing but 127.0.0.1. It puts Node 22 (pinned, from npm) in .cache/node22, and installs the
 * package's dependencies once into .cache/npm-deps so that npm's cache holds them and the tests can install the
 * built package with `npm install --offline`; also the S3-compatible server of the cloud-feed tests
 * (.cache/s3-server) and the single binary's build tools (.cache/binary-tools). Quick when everything is there.
 */
import { spawn } from "node:child_process";
import { access, lstat, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { npmDependencies } from "./npm/package_json.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
export const NODE_VERSION = "22.23.3";
export const CACHE = join(ROOT, ".cache");
export const NODE22 = join(CACHE, "node22", "node_modules", ".bin", "node");
/**
 * The S3-compatible server the cloud-feed tests upload to: a fork of s3rver that checks Signature Version 4 (the
 * original checks only the access key id), run on Node 22.
 */
export const S3_SERVER_PACKAGE = "@20minutes/s3rver@5.0.0";
export const S3_SERVER_DIR = join(CACHE, "s3-server");
/** What scripts/build_binary.ts builds with, pinned: a bundler and the tool that injects the bundle into Node. */
export const BINARY_TOOLS = join(CACHE, "binary-tools");
const BINARY_TOOL_PACKAGES = ["esbuild@0.28.2", "postject@1.0.0-alpha.6"];

function npm(args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => stderr += chunk);
    child.on("error", reject);
    child.on(
      "close",
      (code) => code === 0 ? resolve() : reject(new Error(`npm ${args.join(" ")} failed:\n${stderr.slice(-2000)}`)),
    );
  });
}

/** Megabytes of the files under `dir`. */
async function megabytes(dir: string): Promise<number> {
  let bytes = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += (await lstat(join(entry.parentPath, entry.name))).size;
  }
  return Math.round(bytes / 1e6);
}

/**
 * Runs an install, saying before it what it installs and where, and after it how long it took and how much it wrote:
 * the first run installs about 360 MB and takes minutes, which looked like a hang when nothing was said.
 */
export async function installStep(
  what: string,
  dir: string,
  install: () => Promise<void>,
  say: (line: string) => void = (line) => console.error(line),
): Promise<void> {
  const started = Date.now();
  say(`setup: installing ${what} into ${relative(ROOT, dir)}/ (first run only; later runs reuse it)`);
  await install();
  const seconds = Math.round((Date.now() - started) / 1000);
  say(`setup: ${what}: ${await megabytes(dir)} MB in ${seconds} s`);
}

async function exists(path: string): Promise<boolean> {
  return await access(path).then(() => true, () => false);
}

export async function ensureNode22(): Promise<void> {
  if (await exists(NODE22)) return;
  const dir = join(CACHE, "node22");
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "package.json"), '{ "private": true }\n');
  await installStep(
    `Node ${NODE_VERSION} (the npm package's tests run on it)`,
    dir,
    () => npm(["install", "--no-audit", "--no-fund", `node@${NODE_VERSION}`], dir),
  );
}

export async function ensureDependenciesCached(): Promise<void> {
  const config = JSON.parse(await readFile(join(ROOT, "deno.json"), "utf8"));
  const dependencies = npmDependencies(config.imports);
  const wanted = JSON.stringify(dependencies);
  const dir = join(CACHE, "npm-deps");
  const marker = join(dir, "installed.json");
  if (await readFile(marker, "utf8").catch(() => "") === wanted) return;
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "package.json"), '{ "private": true }\n');
  const specs = Object.entries(dependencies).map(([name, version]) => `${name}@${version}`);
  await installStep(
    "the npm package's dependencies (so its tests install it offline)",
    dir,
    () => npm(["install", "--no-audit", "--no-fund", "--no-save", ...specs], dir),
  );
  await writeFile(marker, wanted);
}

async function ensureS3Server(): Promise<void> {
  const marker = join(S3_SERVER_DIR, "installed.txt");
  if (await readFile(marker, "utf8").catch(() => "") === S3_SERVER_PACKAGE) return;
  await mkdir(S3_SERVER_DIR, { recursive: true });
  await writeFile(join(S3_SERVER_DIR, "package.json"), '{ "private": true }\n');
  await installStep(
    "an S3-protocol server (for the cloud feed tests)",
    S3_SERVER_DIR,
    () =>
      npm(
        ["install", "--no-audit", "--no-fund", "--no-save", "--engine-strict=false", S3_SERVER_PACKAGE],
        S3_SERVER_DIR,
      ),
  );
  await writeFile(marker, S3_SERVER_PACKAGE);
}

export async function ensureBinaryTools(): Promise<void> {
  const marker = join(BINARY_TOOLS, "installed.txt");
  if (await readFile(marker, "utf8").catch(() => "") === BINARY_TOOL_PACKAGES.join(" ")) return;
  await mkdir(BINARY_TOOLS, { recursive: true });
  await writeFile(join(BINARY_TOOLS, "package.json"), '{ "private": true }\n');
  await installStep(
    "the single binary's build tools (esbuild, postject)",
    BINARY_TOOLS,
    () => npm(["install", "--no-audit", "--no-fund", "--no-save", ...BINARY_TOOL_PACKAGES], BINARY_TOOLS),
  );
  await writeFile(marker, BINARY_TOOL_PACKAGES.join(" "));
}

if (import.meta.main) {
  await ensureNode22();
  await ensureDependenciesCached();
  await ensureS3Server();
  await ensureBinaryTools();
}
