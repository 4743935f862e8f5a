/**
 * Every path a crawl will write, checked before anything is opened for writing: the feeds (`-o`, `-O`) and the path
 * settings (warc, har, deltafetch, stats_file: files; cache, checkpoint: directories). A mistake in any of them
 * stops the command with one line and exit 2 while every old file is still whole; without this a bad `warc` was
 * found only after `-O` had truncated the items file.
 */
import { stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { UsageError } from "../errors.ts";
import type { FeedTarget } from "./feeds.ts";
import { isStdoutPath } from "./stdout_feed.ts";
import type { SettingValues } from "../settings/table.ts";
import { checkWritableDirectory, checkWritableFile } from "../settings/writable_path.ts";

/** The path settings that name a file, and those that name a directory, by their command-line names. */
const FILE_SETTINGS = [["warc", "warc"], ["har", "har"], ["deltafetch", "deltafetch"], [
  "statsFile",
  "stats_file",
]] as const;
const DIRECTORY_SETTINGS = [["cache", "cache"], ["checkpoint", "checkpoint"]] as const;

async function isDirectory(path: string): Promise<boolean> {
  return await stat(path).then((info) => info.isDirectory(), () => false);
}

/** Throws a UsageError naming the first path that cannot be written, or two uses of one path. */
export async function checkCrawlPaths(settings: SettingValues, feeds: readonly FeedTarget[]): Promise<void> {
  const uses = new Map<string, string>();
  const claim = (path: string, what: string) => {
    const key = resolve(path);
    const earlier = uses.get(key);
    if (earlier !== undefined) {
      throw new UsageError(`${path} is both the ${earlier} and the ${what}; give each its own path`);
    }
    uses.set(key, what);
  };
  for (const feed of feeds) if (!isStdoutPath(feed.path)) claim(feed.path, `feed ${feed.path}`);
  // The directories first: a file may go in one of them (deltafetch=state/delta.db beside checkpoint=state), and
  // then its directory is one the crawl makes, not one that must exist already.
  const made = new Set<string>();
  for (const [name, cli] of DIRECTORY_SETTINGS) {
    const path = settings[name] as string | null;
    if (path === null) continue;
    claim(path, `${cli} directory`);
    await checkWritableDirectory(path, cli);
    made.add(resolve(path));
  }
  for (const [name, cli] of FILE_SETTINGS) {
    const path = settings[name] as string | null;
    if (path === null) continue;
    claim(path, `${cli} file`);
    const parent = resolve(dirname(path));
    if (made.has(parent) && !(await isDirectory(parent))) continue;
    await checkWritableFile(path, cli);
  }
}
