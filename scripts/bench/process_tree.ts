/**
 * A process and every process under it, measured from /proc (Linux): PSS, private memory, RSS and CPU, by kind of
 * process (the crawl itself, Chromium's browser, renderers, GPU, network, other). Used by the rendering benchmarks.
 */
import { readFile } from "node:fs/promises";
import { processTree } from "../../src/browser/memory_budget.ts";

export interface Tree {
  pss: number;
  /**
   * Memory no other process shares (Private_Clean + Private_Dirty). PSS divides a shared page among every process
   * that maps it, so a tree's PSS falls when another Chromium starts on the machine and rises when it exits; this
   * does not, and shows growth better.
   */
  uss: number;
  rss: number;
  cpu: number;
  /** PSS by kind of process: the crawl (or bare loop) itself, Chromium's browser process, renderers, GPU, ... */
  kinds: Record<string, number>;
  /** RSS by kind of process, summed (pages shared between processes of a kind counted in each). */
  rssKinds: Record<string, number>;
  /**
   * Anonymous memory by kind of process, summed: the heaps, not the executable's and libraries' pages, which RSS also
   * counts and which grow in each process as it runs code it had not run before.
   */
  anonKinds: Record<string, number>;
  renderers: number;
  /** Each renderer's own PSS (bytes), largest first. */
  rendererPss: number[];
}

/** What a process of the tree is, from its command line (Chromium's helpers write theirs space-separated). */
export function kindOf(commandLine: string): string {
  const words = commandLine.split(/[\0 ]/);
  if (!words[0].includes("chrom")) return "crawl process";
  const type = words.find((word) => word.startsWith("--type="))?.slice(7);
  if (type === undefined) return words[0].includes("crashpad") ? "other" : "browser";
  if (type === "renderer" || type === "gpu-process") return type;
  const sub = words.find((word) => word.startsWith("--utility-sub-type="));
  if (sub?.includes("network")) return "network";
  return "other";
}

/** The process `root` and its descendants: summed PSS and RSS (bytes) and CPU seconds, from /proc. */
export async function tree(root: number): Promise<Tree> {
  const members = await processTree(root) ?? new Set([root]);
  const cpuOf = new Map<number, number>();
  for (const pid of members) {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields.length >= 15) cpuOf.set(pid, (Number(fields[11]) + Number(fields[12])) / 100);
  }
  let pss = 0;
  let uss = 0;
  let rss = 0;
  let cpu = 0;
  let renderers = 0;
  const kinds: Record<string, number> = {};
  const rssKinds: Record<string, number> = {};
  const anonKinds: Record<string, number> = {};
  const rendererPss: number[] = [];
  for (const pid of members) {
    const rollup = await readFile(`/proc/${pid}/smaps_rollup`, "utf8").catch(() => "");
    const own = Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0) * 1024;
    pss += own;
    uss += (Number(/^Private_Clean:\s+(\d+)/m.exec(rollup)?.[1] ?? 0) +
      Number(/^Private_Dirty:\s+(\d+)/m.exec(rollup)?.[1] ?? 0)) * 1024;
    const resident = Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0) * 1024;
    rss += resident;
    cpu += cpuOf.get(pid) ?? 0;
    const kind = kindOf(await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => ""));
    kinds[kind] = (kinds[kind] ?? 0) + own;
    rssKinds[kind] = (rssKinds[kind] ?? 0) + resident;
    anonKinds[kind] = (anonKinds[kind] ?? 0) + Number(/^Anonymous:\s+(\d+)/m.exec(rollup)?.[1] ?? 0) * 1024;
    if (kind === "renderer" && own > 0) {
      renderers++;
      rendererPss.push(own);
    }
  }
  rendererPss.sort((a, b) => b - a);
  return { pss, uss, rss, cpu, kinds, rssKinds, anonKinds, renderers, rendererPss };
}
