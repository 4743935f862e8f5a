/**
 * A PostgreSQL server of a test's own: Debian's binaries (/usr/lib/postgresql/VERSION/bin), a cluster made by initdb
 * in a temporary directory, listening on 127.0.0.1 at a free port, never the system's server. PostgreSQL refuses to
 * run as root, so as root the cluster is made and run as the `postgres` user.
 */
import { execFile } from "node:child_process";
import { chown, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "../helpers/free_port.ts";

const run = promisify(execFile);

/** A running server: its URL (user `netweir`, trust authentication, database `postgres`). */
export interface PostgresServer {
  readonly url: string;
  /** Runs one SQL statement through psql and returns its rows as tab-separated lines. */
  query(sql: string): Promise<string[]>;
  /** Stops the server at once (`immediate`: as a crash would, no checkpoint). */
  kill(): Promise<void>;
  /** Starts it again on the same port, after kill(). */
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  stop(): Promise<void>;
}

async function binaries(): Promise<string> {
  const root = "/usr/lib/postgresql";
  const versions = await readdir(root).catch(() => [] as string[]);
  const newest = versions.filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error(`no PostgreSQL under ${root} (install Debian's postgresql package)`);
  return join(root, newest, "bin");
}

/** Starts a fresh server; the caller must stop() it. */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = await binaries();
  const dir = await mkdtemp(join(tmpdir(), "netweir-pg-"));
  const asRoot = Deno.uid() === 0;
  if (asRoot) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    const { stdout: group } = await run("id", ["-g", "postgres"]);
    await chown(dir, Number(stdout), Number(group));
  }
  const as = (command: string, args: string[]) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", join(bin, command), ...args]) : run(join(bin, command), args);
  const data = join(dir, "data");
  await as("initdb", ["-D", data, "-U", "netweir", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = () => as("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "start"]).then(() => {});
  await start();
  const url = `postgresql://netweir@127.0.0.1:${port}/postgres`;
  let stopped = false;
  return {
    url,
    async query(sql: string) {
      const { stdout } = await run(join(bin, "psql"), [url, "-AtqF", "\t", "-c", sql]);
      return stdout.split("\n").filter((line) => line !== "");
    },
    async kill() {
      await as("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
    },
    start,
    async stop() {
      if (stopped) return;
      stopped = true;
      await as("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}
