/**
 * Signalling processes and process groups, written once over the two things a runtime provides: its `kill` and a
 * way to end a process tree on Windows. Like Hono's adapters, the runtime files only pass their functions in.
 */
import type { ProcessSignal } from "./types.ts";

export interface KillPrimitives {
  /** Sends a signal; false when there is no such process (a negative id is a process group). */
  kill(pid: number, signal: ProcessSignal): boolean;
  windows: boolean;
  /** Ends a process and all its children on Windows (taskkill /T /F); true when it worked. */
  killTree(pid: number): boolean;
}

function checkPid(pid: number): void {
  // 0 or a negative id would signal this process's own group.
  if (!Number.isInteger(pid) || pid <= 0) throw new RangeError(`not a process id: ${pid}`);
}

export function processSignals(primitives: KillPrimitives): {
  signalProcess(pid: number, signal: ProcessSignal): boolean;
  killProcessGroup(pgid: number, signal: ProcessSignal): boolean;
} {
  return {
    signalProcess(pid, signal) {
      checkPid(pid);
      return primitives.kill(pid, signal);
    },
    killProcessGroup(pgid, signal) {
      checkPid(pgid);
      if (!primitives.windows) return primitives.kill(-pgid, signal);
      if (signal !== "SIGKILL") return primitives.kill(pgid, signal);
      return primitives.killTree(pgid);
    },
  };
}
