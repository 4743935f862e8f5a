/**
 * The processes that started a crawl through npm, and whether they are still there. `npx netweir crawl` is npm, then
 * a shell, then Netweir; `npx deno task crawl` puts `deno task` between the shell and the crawl. A SIGTERM sent to the
 * npm process, by `timeout`, a service manager or a user, is passed by npm to the shell, which dies of it without
 * passing it on: npm exited with 143 and the crawl ran on, its parents gone (`deno task` itself does pass SIGTERM on).
 * Ctrl-C worked only because a terminal signals the whole process group. So a crawl started through npm (npm puts
 * `npm_command` in the environment of what it runs) notes its ancestors up to the highest npm process within a few
 * levels, and stops as for a SIGTERM when one of them ends: whichever of them was sent the signal, the crawl stops
 * cleanly.
 *
 * Read from /proc, so on Linux only; elsewhere nothing is watched. A crawl started otherwise (a shell, `nohup`, a
 * service manager running Netweir itself) watches nothing either: its parent ending is no reason to stop.
 */
import { readFileSync } from "node:fs";
import process from "node:process";

/** How far up npm is looked for: npm, a shell, `deno task`, and a little room. */
const MAX_DEPTH = 6;

/** One ancestor: its pid and its start time (so that a pid the kernel gives to a new process is not taken for it). */
export interface Launcher {
  pid: number;
  started: string;
  command: string;
}

/** The fields of /proc/PID/stat after the command's parentheses: state, ppid, ... and start time (the 22nd field). */
function procStat(pid: number): { state: string; ppid: number; started: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0], ppid: Number(fields[1]), started: fields[19] };
  } catch {
    return undefined;
  }
}

function procCommand(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
  } catch {
    return "";
  }
}

/**
 * Whether a command line is one npm puts between itself and what it runs: a shell, or `deno task` (as in `npx deno
 * task crawl`). Any other process there (`netweir serve` running a job, a test runner) started the crawl itself, and
 * its own end is not npm's signal: a job is not told its service died (docs/serve.md).
 */
function isGoBetween(command: string): boolean {
  return /^(\S*\/)?(sh|bash|dash|zsh)(\s|$)/.test(command) || /^(\S*\/)?deno task\s/.test(command);
}

/** Whether a command line is npm's: npm titles its process `npm exec ...`, `npm run ...`. */
function isNpm(command: string): boolean {
  return /^(\S*\/)?(npm|npx)(\s|$)/.test(command);
}

/**
 * The ancestors of process `pid` up to and including the highest npm process within {@link MAX_DEPTH} levels, when
 * the environment says npm started it and only npm, shells and `deno task` stand between; else none.
 */
export function launchersOf(
  env: Record<string, string | undefined> = process.env,
  pid: number = process.pid,
): Launcher[] {
  if (env.npm_command === undefined) return [];
  const chain: Launcher[] = [];
  let highest = -1;
  for (let at = procStat(pid)?.ppid; at !== undefined && at > 1 && chain.length < MAX_DEPTH;) {
    const stat = procStat(at);
    if (!stat) break;
    const command = procCommand(at);
    chain.push({ pid: at, started: stat.started, command });
    if (isNpm(command)) highest = chain.length - 1;
    else if (!isGoBetween(command)) break;
    at = stat.ppid;
  }
  return chain.slice(0, highest + 1);
}

/** The first of `launchers` that has ended (or is a zombie, ended but not yet reaped), or undefined. */
export function endedLauncher(launchers: readonly Launcher[]): Launcher | undefined {
  return launchers.find((launcher) => {
    const stat = procStat(launcher.pid);
    return !stat || stat.started !== launcher.started || stat.state === "Z";
  });
}
