/**
 * Whether Netweir may write a file or a directory at a path, checked without creating or changing anything. One rule
 * for every path a crawl writes (feeds, WARC, HAR, deltafetch, stats file, cache, checkpoint): Netweir creates the
 * file or directory the path names, never the folders above it. A missing parent is far more often a typing mistake
 * (`/x/a.warc.gz` for `./x/a.warc.gz`) than a wish, and creating it would scatter folders where nobody looks.
 */
import { access, constants, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { UsageError } from "../errors.ts";

function errorCode(error: unknown): string | undefined {
  return (error as { code?: unknown })?.code as string | undefined;
}

/** What a path is for, as the message names it: `feed`, `warc`, `checkpoint`... */
function refusal(label: string, path: string, reason: string, cause?: unknown): UsageError {
  return new UsageError(`cannot write ${label} ${path}: ${reason}`, { cause });
}

/**
 * Checks that a file can be written at `path`: it is not a directory and is writable, or it does not exist and its
 * directory does and is writable. Returns the existing file's size (undefined when there is none); throws a
 * UsageError `cannot write LABEL PATH: why` otherwise.
 */
export async function checkWritableFile(path: string, label: string): Promise<number | undefined> {
  let size: number;
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw refusal(label, path, "it is a directory");
    size = info.size;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if (errorCode(error) === "ENOTDIR") throw refusal(label, path, "a parent of it is not a directory", error);
    if (errorCode(error) !== "ENOENT") throw refusal(label, path, String((error as Error).message ?? error), error);
    await checkParent(path, label);
    return undefined;
  }
  try {
    await access(path, constants.W_OK);
  } catch (error) {
    throw refusal(label, path, "permission denied", error);
  }
  return size;
}

/** Checks that a directory can be used or created at `path` (its parent must exist), as checkWritableFile does. */
export async function checkWritableDirectory(path: string, label: string): Promise<void> {
  try {
    const info = await stat(path);
    if (!info.isDirectory()) throw refusal(label, path, "it is not a directory");
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if (errorCode(error) === "ENOTDIR") throw refusal(label, path, "a parent of it is not a directory", error);
    if (errorCode(error) !== "ENOENT") throw refusal(label, path, String((error as Error).message ?? error), error);
    await checkParent(path, label);
    return;
  }
  try {
    await access(path, constants.W_OK);
  } catch (error) {
    throw refusal(label, path, "permission denied", error);
  }
}

async function checkParent(path: string, label: string): Promise<void> {
  const dir = dirname(path);
  try {
    const info = await stat(dir);
    if (!info.isDirectory()) throw refusal(label, path, `${dir} is not a directory`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = errorCode(error);
    if (code === "ENOENT") throw refusal(label, path, `directory ${dir} does not exist`, error);
    if (code === "ENOTDIR") throw refusal(label, path, `${dir} is not a directory`, error);
    throw refusal(label, path, String((error as Error).message ?? error), error);
  }
  try {
    await access(dir, constants.W_OK);
  } catch (error) {
    throw refusal(label, path, `permission denied in ${dir}`, error);
  }
}
