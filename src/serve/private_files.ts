/**
 * The files and folders `netweir serve` makes under --dir are its user's alone (0600 files, 0700 folders): jobs.db and
 * the job logs hold every job's settings and arguments, logins included, and a log other users could write to would
 * let them forge lines that dashboards trust. Modes are given where each file is made, not left to the umask:
 * Deno's appendFileSync makes files 0666 whatever the umask says.
 */
import { chmodSync, closeSync, mkdirSync, openSync, writeSync } from "node:fs";

/** Read and write for the service's user, nothing for anyone else. */
export const PRIVATE_FILE = 0o600;

/** The same for folders (with the search bit). */
export const PRIVATE_DIR = 0o700;

/** Makes a folder and any missing parents, each 0700; folders already there are left as they are. */
export function makePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIR });
}

/** Appends text to a file, making it 0600 when missing. */
export function appendPrivate(path: string, text: string): void {
  const fd = openSync(path, "a", PRIVATE_FILE);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes a file 0600 before someone else's code creates it with its own mode (SQLite makes 0644 files, and its -wal
 * and -shm files take the database's mode), and makes 0600 one an older version left readable.
 */
export function keepPrivate(path: string): void {
  closeSync(openSync(path, "a", PRIVATE_FILE));
  chmodSync(path, PRIVATE_FILE);
}

/** Makes files 0600 if they exist (a database's -wal and -shm left by a service that was killed). */
export function keepPrivateIfThere(paths: readonly string[]): void {
  for (const path of paths) {
    try {
      chmodSync(path, PRIVATE_FILE);
    } catch (error) {
      if ((error as { code?: string }).code !== "ENOENT") throw error;
    }
  }
}
