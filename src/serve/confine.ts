/**
 * Keeping a job's files (checkpoint, cache, deltafetch, warc, har) inside its project's data directory. Anyone who
 * can schedule a job chooses these paths, so each is checked before the job is queued: relative, no `..`, not a
 * URL, and no symlink on the way that leads out.
 */
import { namesInitScriptFile } from "../browser/init_script.ts";
import { lstat, mkdir, readlink, realpath } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { PRIVATE_DIR } from "./private_files.ts";

/** Settings naming a file or directory: over HTTP, confined to DIR/data/PROJECT. */
export const CONFINED_SETTINGS: ReadonlySet<string> = new Set([
  "checkpoint",
  "cache",
  "deltafetch",
  "warc",
  "har",
  "browser_upload_dir",
]);

/**
 * Whether a job's setting names a path that is confined to the data directory: the settings above, and
 * `browser_init_script` when its value names a file (a job would have it read and run in its pages) rather than being
 * the script.
 */
export function isConfined(setting: string, value: string): boolean {
  return CONFINED_SETTINGS.has(setting) || (setting === "browser_init_script" && namesInitScriptFile(value));
}

/**
 * The folders a job's confined file settings need, to be made as it starts: `warc=runs/books.warc` names a file in
 * DIR/data/PROJECT/runs, which the crawl would not make itself. Only folders inside `dataDir` are given (every
 * confined value is, since schedule.json checked it).
 */
export function confinedFolders(settings: readonly string[], dataDir: string): string[] {
  const folders = new Set<string>();
  for (const pair of settings) {
    const eq = pair.indexOf("=");
    if (eq < 0 || !isConfined(pair.slice(0, eq), pair.slice(eq + 1))) continue;
    const folder = dirname(resolve(dataDir, pair.slice(eq + 1)));
    if (inside(dataDir, folder)) folders.add(folder);
  }
  return [...folders];
}

/** Why a path was refused, in words; thrown by {@link confinePath}. */
export class ConfinementError extends Error {
  override name = "ConfinementError";
}

const URL_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]+:/;
const WINDOWS_ABSOLUTE = /^(?:[A-Za-z]:|[\\/])/;
/** Symlinks followed before a path is refused as a loop. */
const MAX_LINKS = 40;

/** Whether `path` is `root` or below it (both absolute and normalised). */
function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(".." + sep) && rel !== ".." && !isAbsolute(rel));
}

/** The path itself if it exists (even as a dangling link), else its nearest existing ancestor. */
async function deepestExisting(path: string): Promise<string> {
  let current = path;
  for (;;) {
    if (await lstat(current).then(() => true, () => false)) return current;
    const parent = dirname(current);
    if (parent === current) return current;
    current = parent;
  }
}

/**
 * Whether what exists of `target` stays inside `realRoot` once symlinks are followed. A dangling link is followed
 * by hand, since the crawl would create whatever it points at.
 */
async function staysInside(realRoot: string, target: string, links = 0): Promise<boolean> {
  if (links > MAX_LINKS) return false;
  const existing = await deepestExisting(target);
  let real: string;
  try {
    real = await realpath(existing);
  } catch {
    // A dangling symlink: where would writing through it land?
    const link = await readlink(existing).catch(() => undefined);
    if (link === undefined) return false;
    const pointsTo = resolve(dirname(existing), link);
    return staysInside(realRoot, resolve(pointsTo, relative(existing, target)), links + 1);
  }
  return inside(realRoot, resolve(real, relative(existing, target)));
}

/**
 * Checks `value` (a setting such as checkpoint, as a job gave it) and returns the absolute path it stands for
 * inside `dataDir`.
 *
 * @throws ConfinementError saying which rule the value breaks.
 */
export async function confinePath(setting: string, value: string, dataDir: string): Promise<string> {
  const quoted = JSON.stringify(value);
  const where = "a relative path inside the project's data directory";
  if (value.includes("\0")) throw new ConfinementError(`${setting} ${quoted} contains a NUL character`);
  if (URL_SCHEME.test(value)) {
    throw new ConfinementError(`${setting} ${quoted} is a URL; over HTTP it must be ${where}`);
  }
  if (isAbsolute(value) || WINDOWS_ABSOLUTE.test(value)) {
    throw new ConfinementError(`${setting} ${quoted} is an absolute path; over HTTP it must be ${where}`);
  }
  if (value.split(/[\\/]/).includes("..")) {
    throw new ConfinementError(`${setting} ${quoted} contains "..": over HTTP it must be ${where}`);
  }
  const root = resolve(dataDir);
  const target = resolve(root, value);
  if (target === root) {
    throw new ConfinementError(`${setting} ${quoted} names the data directory itself; name a file or directory in it`);
  }
  if (await leadsOut(root, target)) {
    throw new ConfinementError(`${setting} ${quoted} leads through a symlink to outside the project's data directory`);
  }
  return target;
}

/** Whether `target` (absolute, below `root`) leads through a symlink under `root` to outside it. */
async function leadsOut(root: string, target: string): Promise<boolean> {
  // Only a symlink under the data directory can lead out of it; what is above it is the operator's choice.
  const realRoot = await realpath(root).catch(() => undefined);
  if (realRoot === undefined || !inside(root, await deepestExisting(target))) return false;
  return !(await staysInside(realRoot, target));
}

/**
 * Checks a job's file settings again as its process starts, and makes the folders they need: a symlink planted in
 * the data directory after the job was scheduled (by another job's spider, say) must not lead its files out. Takes
 * the "KEY=VALUE" settings as stored (file settings already absolute, inside `dataDir`).
 *
 * @throws ConfinementError naming the setting whose path now leads out (or is no longer inside `dataDir`).
 */
export async function reconfine(settings: readonly string[], dataDir: string): Promise<void> {
  const root = resolve(dataDir);
  for (const pair of settings) {
    const eq = pair.indexOf("=");
    const setting = pair.slice(0, eq);
    if (eq < 0 || !isConfined(setting, pair.slice(eq + 1))) continue;
    const target = resolve(root, pair.slice(eq + 1));
    if (!inside(root, target) || await leadsOut(root, target)) {
      throw new ConfinementError(
        `${setting} ${JSON.stringify(target)} now leads through a symlink to outside the project's data directory ` +
          "(planted after the job was scheduled); the job did not start",
      );
    }
  }
  for (const folder of confinedFolders(settings, root)) await mkdir(folder, { recursive: true, mode: PRIVATE_DIR });
}
