/**
 * One `netweir serve` per --dir. The service takes this lock before it reads or writes anything else in the dir.
 *
 * Why SQLite's lock: the spec asks for a file lock, and it has to work the same on Deno and on Node, which has no
 * flock. SQLite (node:sqlite, built into both) holds a real POSIX lock (fcntl; LockFileEx on Windows) on
 * DIR/serve.lock while a connection in exclusive locking mode keeps an exclusive transaction open. That gives
 * what a pid file with O_EXCL cannot:
 * - the kernel drops the lock when the process dies, even by kill -9, so a stale lock never blocks the next start
 *   and there is no "is that pid still ours?" guess (pids are reused);
 * - fcntl locks are not inherited by child processes, so crawls that outlive a killed service (they run on, see the
 *   spec) do not keep the dir locked;
 * - SQLite also sees its own connections' locks, so a second acquire in the same process fails too.
 * Like any file lock it may not be seen across machines sharing the dir over NFS, as the spec warns.
 *
 * The holder's pid goes in DIR/serve.pid for the error message only; the lock never trusts it.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { runtime } from "../runtime/mod.ts";
import { keepPrivate, makePrivateDir } from "./private_files.ts";

/** A held dir lock. */
export interface DirLock {
  /** The locked dir, absolute. */
  readonly dir: string;
  /** Lets the next service take the dir. Safe to call twice. */
  release(): Promise<void>;
}

/** The lock file and the file naming its holder, in `dir`. */
export function dirLockFiles(dir: string): { lock: string; pid: string } {
  return { lock: join(dir, "serve.lock"), pid: join(dir, "serve.pid") };
}

async function holderPid(pidFile: string): Promise<string> {
  const text = await readFile(pidFile, "utf8").catch(() => "");
  // Empty while the holder is between taking the lock and writing its pid.
  return /^\d+\s*$/.test(text) ? text.trim() : "unknown";
}

function isLocked(error: unknown): boolean {
  return error instanceof Error && /database is locked|SQLITE_BUSY/i.test(error.message);
}

/**
 * Takes the lock on `dir` (created when missing), or throws an Error naming the dir and the pid of the service
 * that holds it.
 */
export async function acquireDirLock(dir: string): Promise<DirLock> {
  const absolute = resolve(dir);
  // Made 0700 when missing (private_files.ts says why); a --dir that is there keeps its mode.
  makePrivateDir(absolute);
  const files = dirLockFiles(absolute);
  keepPrivate(files.lock);
  const db = new DatabaseSync(files.lock);
  try {
    // busy_timeout 0: fail at once rather than wait for the other service to stop. journal_mode MEMORY: nothing
    // is ever written, so no serve.lock-journal file is needed (OFF is refused in SQLite's defensive mode).
    db.exec("PRAGMA busy_timeout = 0; PRAGMA journal_mode = MEMORY; PRAGMA locking_mode = EXCLUSIVE;");
    db.exec("BEGIN EXCLUSIVE");
  } catch (error) {
    db.close();
    if (!isLocked(error)) throw error;
    const pid = await holderPid(files.pid);
    throw new Error(
      `${absolute} is in use by another netweir serve (pid ${pid}); one service per --dir: stop it or use another --dir`,
    );
  }
  try {
    keepPrivate(files.pid); // 0600 also when a killed service left it behind
    await writeFile(files.pid, `${runtime.pid}\n`);
  } catch (error) {
    db.close();
    throw error;
  }
  let released = false;
  return {
    dir: absolute,
    async release() {
      if (released) return;
      released = true;
      // The pid file first: once the lock is gone it may already be the next holder's.
      await rm(files.pid, { force: true });
      db.close();
    },
  };
}
