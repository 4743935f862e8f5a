/**
 * A memory budget for Chromium (`browser_memory`): what its processes use together, measured now and then, lowers the
 * tabs that render at once while it is over the budget, one at a time, and raises them again, one at a time, once
 * it is well under (as Crawlee's autoscaled pool does by CPU and memory). Fewer tabs is what lowers a browser's
 * memory: each renders a page whose DOM, scripts and images live in a renderer, and real pages are large (500 pages of
 * rustdoc at four tabs took the renderers to 1.6 GB).
 *
 * Measured as PSS (each shared page divided among the processes sharing it, so the sum is honest) of the browser
 * process and everything under it, from /proc; where there is no /proc (macOS, Windows) there is no budget, and the
 * crawl says so once.
 */
import { readdir, readFile } from "node:fs/promises";

/** The process `root` and every process under it, by /proc (the `stat` of each); undefined where there is no /proc. */
export async function processTree(root: number): Promise<Set<number> | undefined> {
  const entries = await readdir("/proc").catch(() => undefined);
  if (entries === undefined) return undefined;
  const parents = new Map<number, number>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    // The command name may hold spaces and parentheses: the fields that follow start after the last ")".
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (Number.isFinite(ppid)) parents.set(Number(entry), ppid);
  }
  const members = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (members.has(ppid) && !members.has(pid)) {
        members.add(pid);
        grew = true;
      }
    }
  }
  return members;
}

/** The PSS of `root` and every process under it, in bytes; undefined where /proc cannot tell. */
export async function treeMemory(root: number): Promise<number | undefined> {
  const members = await processTree(root);
  if (members === undefined) return undefined;
  let total = 0;
  for (const pid of members) {
    const rollup = await readFile(`/proc/${pid}/smaps_rollup`, "utf8").catch(() => "");
    total += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0) * 1024;
  }
  return total;
}

/** The tabs allowed at once under a budget: from 1 up to the `browser_tabs` setting. */
export class TabBudget {
  readonly #most: number;
  readonly #bytes: number;
  #allowed: number;

  constructor(most: number, bytes: number) {
    this.#most = most;
    this.#bytes = bytes;
    this.#allowed = most;
  }

  get allowed(): number {
    return this.#allowed;
  }

  /**
   * Takes a measure of the browser's memory: one tab fewer when over the budget, one more when under three quarters of
   * it (a gap, so the count does not swing at every measure). Returns the change (-1, 0 or +1).
   */
  measured(bytes: number): number {
    if (bytes > this.#bytes && this.#allowed > 1) {
      this.#allowed--;
      return -1;
    }
    if (bytes < this.#bytes * 0.75 && this.#allowed < this.#most) {
      this.#allowed++;
      return 1;
    }
    return 0;
  }
}
