/**
 * Finding every process of a job, including the ones that left its process group: a child that calls `setsid` (a
 * daemonising helper, a browser started detached) is in a session of its own, so SIGKILL to the job's group misses
 * it, and once its parent has exited it belongs to init, so the process tree no longer leads to it either.
 *
 * Two ways, both from /proc (Linux; elsewhere nothing is found and the group kill is all there is):
 *
 * - the tree: every process whose parent chain leads to the job's process, while that process is alive;
 * - a marker: every process whose environment holds the job's `NETWEIR_SERVE_JOB_TOKEN`, which the job's process is
 *   started with and every process it starts inherits, reparented or not (unless it clears its environment).
 *
 * Only processes of the service's own user can be read, which are the only ones it could signal anyway.
 */
import { readdirSync, readFileSync } from "node:fs";

/** The variable a job's processes carry, and are found by. */
export const JOB_TOKEN_VARIABLE = "NETWEIR_SERVE_JOB_TOKEN";

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "latin1");
  } catch {
    return undefined;
  }
}

/** Process ids in /proc (none where there is no /proc). */
function allPids(): number[] {
  try {
    return readdirSync("/proc").filter((name) => /^\d+$/.test(name)).map(Number);
  } catch {
    return [];
  }
}

/** A process's parent, from /proc/PID/stat (after the command name, which may hold spaces and parentheses). */
function parentOf(pid: number): number | undefined {
  const stat = read(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[1]);
}

/**
 * The processes of the job whose process is `root` and whose marker is `token`, `root` itself left out (it is
 * signalled through its group). `byTree` only while `root` is alive: once it has exited its id may be reused.
 */
export function jobProcesses(root: number, token: string, byTree: boolean): number[] {
  const pids = allPids();
  const parents = new Map<number, number>();
  for (const pid of pids) {
    const parent = parentOf(pid);
    if (parent !== undefined) parents.set(pid, parent);
  }
  const found = new Set<number>();
  for (const pid of byTree ? pids : []) {
    // The tree: walk up from each process; bounded, in case of a loop read across two moments.
    let at: number | undefined = parents.get(pid);
    for (let steps = 0; at !== undefined && at > 1 && steps < 64; steps++) {
      if (at === root) {
        found.add(pid);
        break;
      }
      at = parents.get(at);
    }
  }
  const marker = `${JOB_TOKEN_VARIABLE}=${token}`;
  for (const pid of pids) {
    if (found.has(pid) || pid === root) continue;
    const environ = read(`/proc/${pid}/environ`);
    if (environ?.split("\0").includes(marker)) found.add(pid);
  }
  found.delete(root);
  return [...found];
}
