/**
 * The file-mode creation mask of this process, for `netweir _serve_job`: a job of `netweir serve` makes its items,
 * stats, checkpoint, cache and archives readable by its user alone, as the service's own files are. node:process's
 * umask is the same on Deno and Node, so this needs no file per runtime.
 */
import process from "node:process";

/** From now on, files and folders this process makes are its user's alone (umask 077). */
export function makeNewFilesPrivate(): void {
  process.umask(0o077);
}
