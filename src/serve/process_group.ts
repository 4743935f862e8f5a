/**
 * One job's process: started in a process group of its own with its output appended to the job's log file, so the
 * service can stop it like Ctrl-C (SIGINT to the crawl process alone) and kill it together with everything it
 * started (SIGKILL to the group).
 *
 * Signals go through the runtime by pid, never `child.kill()`: under Deno, node:child_process delivers only the
 * first signal of a ChildProcess and drops later ones, so the SIGKILL after a SIGINT would be lost.
 */
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { runtime, type StopSignal } from "../runtime/mod.ts";
import { spiderEnvironment } from "./child_env.ts";
import { JOB_TOKEN_VARIABLE, jobProcesses } from "./job_processes.ts";
import { makePrivateDir, PRIVATE_FILE } from "./private_files.ts";

/** How a process ended: its exit code, or the signal that ended it, or why it could not start. */
export interface ProcessExit {
  code: number | null;
  signal: string | null;
  /** Set when the process could not be started (no such command, say). */
  error?: Error;
}

/** What to run and where its output goes. */
export interface ProcessGroupOptions {
  command: string;
  args: string[];
  cwd: string;
  /** Standard output and standard error are appended here (parent dirs are created). */
  logFile: string;
}

/** A process leading its own process group. */
export interface GroupProcess {
  /** Its id, which is also the group's; undefined when it could not be started. */
  readonly pid: number | undefined;
  /** Resolves (never rejects) when it has exited; anything left in its group has been sent SIGKILL by then. */
  readonly exited: Promise<ProcessExit>;
  /** SIGINT (or SIGTERM) to the process alone, as Ctrl-C would stop `netweir crawl`. False once it has exited. */
  interrupt(signal?: StopSignal): boolean;
  /** SIGKILL to every process in the group. False once none is left. */
  kill(): boolean;
}

function killQuietly(pgid: number): void {
  try {
    runtime.killProcessGroup(pgid, "SIGKILL");
  } catch {
    // Not ours to signal any more (the group is gone and its id reused): nothing of the job is left to stop.
  }
}

/** SIGKILL to the job's processes outside its group (job_processes.ts): the ones that called setsid. */
function killStrays(root: number, token: string, byTree: boolean): void {
  for (const pid of jobProcesses(root, token, byTree)) {
    try {
      runtime.signalProcess(pid, "SIGKILL");
    } catch {
      // Gone meanwhile.
    }
  }
}

/**
 * Starts `command` detached (a new session, so a process group it leads) with its output appended to `logFile`.
 * The child gets the log file itself, not a pipe, so it does not depend on this process: if the service is
 * killed, the job runs on to its end and its log is complete. Throws if the log file cannot be opened.
 */
export function startProcessGroup(options: ProcessGroupOptions): GroupProcess {
  makePrivateDir(dirname(options.logFile));
  const token = crypto.randomUUID();
  const fd = openSync(options.logFile, "a", PRIVATE_FILE);
  let child;
  try {
    child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: { ...spiderEnvironment(), [JOB_TOKEN_VARIABLE]: token },
      detached: true,
      stdio: ["ignore", fd, fd],
    });
  } finally {
    closeSync(fd); // the child has its own copy
  }
  const pid = child.pid;
  let running = pid !== undefined;
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once("error", (error) => {
      // A failed spawn reports only this; once started, errors are about signalling and "exit" still comes.
      if (child.pid === undefined) {
        running = false;
        resolve({ code: null, signal: null, error });
      }
    });
    child.once("exit", (code, signal) => {
      running = false;
      // A crawl that has ended leaves nothing behind: a worker or browser it started and did not stop would run
      // on unwatched and keep writing to the job's log.
      if (pid !== undefined) {
        killQuietly(pid);
        killStrays(pid, token, false);
      }
      resolve({ code, signal });
    });
  });
  return {
    pid,
    exited,
    interrupt: (signal: StopSignal = "SIGINT") => running && pid !== undefined && runtime.signalProcess(pid, signal),
    // Not once it has exited and its group was killed: the id may by now belong to someone else.
    kill: () => {
      if (!running || pid === undefined) return false;
      // The strays first, while the job's process is alive and the tree still leads to them.
      killStrays(pid, token, true);
      return runtime.killProcessGroup(pid, "SIGKILL");
    },
  };
}
