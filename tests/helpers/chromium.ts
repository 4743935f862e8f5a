/**
 * Finding Chromium processes, for tests that check none outlives its crawl: by parent (every Chromium process
 * descends from the one the crawl started) and by process group (they stay in the crawl's).
 */
import { runCommand } from "./command.ts";

export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  command: string;
}

/**
 * Every process running on the machine, as `ps` lists them. Zombies are left out: a zombie has exited and holds
 * nothing but its exit status until its parent collects it. That parent is often init (Chromium's main process
 * exits a moment before some of its helpers, which are then handed to init), and the init of the machines this runs
 * on collects orphans every few seconds, later still under load, so counting them would fail a test on a process
 * that has already ended.
 */
export async function processes(): Promise<ProcessInfo[]> {
  const { stdout } = await runCommand("ps", ["-eo", "pid=,ppid=,pgid=,stat=,comm="]);
  return stdout.split("\n").filter((line) => line.trim() !== "").flatMap((line) => {
    const [pid, ppid, pgid, state, ...command] = line.trim().split(/\s+/);
    if (state.startsWith("Z")) return [];
    return [{ pid: Number(pid), ppid: Number(ppid), pgid: Number(pgid), command: command.join(" ") }];
  });
}

/** The processes descending from `pid` (not `pid` itself). */
export function descendants(all: ProcessInfo[], pid: number): ProcessInfo[] {
  const found: ProcessInfo[] = [];
  const parents = new Set([pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const process of all) {
      if (parents.has(process.ppid) && !parents.has(process.pid)) {
        parents.add(process.pid);
        found.push(process);
        grew = true;
      }
    }
  }
  return found;
}

/** Chromium processes among `list`. */
export function chromiumOf(list: ProcessInfo[]): ProcessInfo[] {
  return list.filter((process) => /chrom/i.test(process.command));
}

/** Whether any of `pids` is still running. */
export async function anyAlive(pids: number[]): Promise<number[]> {
  const alive = new Set((await processes()).map((process) => process.pid));
  return pids.filter((pid) => alive.has(pid));
}

/** Waits until none of `pids` runs (up to `ms`); returns those still running then. */
export async function waitGone(pids: number[], ms = 10_000): Promise<number[]> {
  const until = Date.now() + ms;
  let left = await anyAlive(pids);
  while (left.length > 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = await anyAlive(left);
  }
  return left;
}

/**
 * A browser_path for one test: a script that runs Debian's Chromium with `NETWEIR_TEST_BROWSER=MARK` in its
 * environment, which every Chromium process inherits. Tests running at once in one process (deno test --parallel)
 * then tell their own Chromium from the others' by {@link markedChromium}.
 */
export async function markedBrowser(dir: string, mark: string): Promise<string> {
  const { writeFile, chmod } = await import("node:fs/promises");
  const path = `${dir}/chromium-${mark}`;
  await writeFile(path, `#!/bin/sh\nNETWEIR_TEST_BROWSER=${mark} exec /usr/bin/chromium "$@"\n`);
  await chmod(path, 0o755);
  return path;
}

/** The Chromium processes started through {@link markedBrowser} with `mark`. */
export async function markedChromium(mark: string): Promise<ProcessInfo[]> {
  const { readFile } = await import("node:fs/promises");
  const found: ProcessInfo[] = [];
  for (const process of chromiumOf(await processes())) {
    const environment = await readFile(`/proc/${process.pid}/environ`, "latin1").catch(() => "");
    if (environment.split("\0").includes(`NETWEIR_TEST_BROWSER=${mark}`)) found.push(process);
  }
  return found;
}
