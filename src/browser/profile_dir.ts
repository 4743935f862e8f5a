/**
 * Chromium's profile directories, kept under one directory Netweir owns (`netweir-chromium` in the temporary
 * directory) and cleaned up by the next crawl when their own crawl could not. A crawl killed by SIGKILL takes its
 * Chromium with it (the pipe closes), but not the 3 MB profile: nothing was left to remove it.
 *
 * Each profile comes with a lock file that its crawl holds while the profile is in use: SQLite's lock (node:sqlite,
 * built into Deno and Node), a real POSIX lock the kernel drops when the process dies, however it dies, as
 * src/serve/dir_lock.ts explains. So a profile whose lock can be taken belongs to a crawl that is gone, whatever its
 * pid has become since, and a profile in use, by another crawl or by one in this process, is never touched. The lock
 * file is made and locked before its profile, so a profile being made is never taken for a forgotten one.
 */
import { mkdir, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { runtime } from "../runtime/mod.ts";

/** A profile directory in use, and how to be done with it. */
export interface Profile {
  readonly dir: string;
  /** Removes the directory and lets go of its lock. Safe to call twice. */
  remove(): Promise<void>;
}

/** Where profiles are kept: `netweir-chromium` in the temporary directory (TMPDIR). */
export function profilesRoot(): string {
  return join(tmpdir(), "netweir-chromium");
}

/** Takes the lock of `file` (made when missing); undefined when another connection holds it. */
async function lock(file: string): Promise<DatabaseSync | undefined> {
  // Loaded here: node:sqlite warns on Node when loaded, and most crawls never render.
  runtime.quietSqliteWarning();
  const { DatabaseSync } = await import("node:sqlite");
  const db = new DatabaseSync(file);
  try {
    // As in dir_lock.ts: fail at once if held; nothing is ever written, so no journal file.
    db.exec("PRAGMA busy_timeout = 0; PRAGMA journal_mode = MEMORY; PRAGMA locking_mode = EXCLUSIVE;");
    db.exec("BEGIN EXCLUSIVE");
    return db;
  } catch {
    db.close();
    return undefined;
  }
}

/** Removes the profiles under `root` whose crawl is gone. Returns how many. */
export async function removeForgottenProfiles(root = profilesRoot()): Promise<number> {
  const names = await readdir(root).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    if (!name.endsWith(".lock")) continue;
    const file = join(root, name);
    const db = await lock(file).catch(() => undefined);
    if (db === undefined) continue;
    await rm(file.slice(0, -".lock".length), { recursive: true, force: true }).catch(() => {});
    await rm(file, { force: true }).catch(() => {});
    db.close();
    removed++;
  }
  return removed;
}

/** A new profile directory under `root`, locked for this process, after removing the forgotten ones. */
export async function newProfile(root = profilesRoot()): Promise<Profile> {
  await mkdir(root, { recursive: true });
  await removeForgottenProfiles(root);
  for (;;) {
    const dir = join(root, `profile-${crypto.randomUUID()}`);
    const db = await lock(`${dir}.lock`);
    if (db === undefined) continue; // a name another crawl took this instant
    await mkdir(dir);
    let removed: Promise<void> | undefined;
    return {
      dir,
      remove: () =>
        removed ??= (async () => {
          await rm(dir, { recursive: true, force: true }).catch(() => {});
          await rm(`${dir}.lock`, { force: true }).catch(() => {});
          db.close();
        })(),
    };
  }
}
