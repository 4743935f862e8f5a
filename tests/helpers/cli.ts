/**
 * Runs Netweir's command line (cli.ts at the repository root) in a fresh process, the way a user does, with the
 * same Deno (or Node) that runs the tests. `runCli` waits for it to finish; `startCli` returns at once, for tests
 * that signal or kill a crawl while it runs.
 *
 * ```ts
 * const { code, stdout, stderr } = await runCli(["crawl", spiderFile, "-O", out]);
 * assert.equal(code, 0, stderr);
 * ```
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { runtime } from "../../src/runtime/mod.ts";
import { sendSignal, type TestSignal } from "./signal.ts";

/** The repository root (resolved from this file, so it works from any working directory and any clone). */
export const REPO_ROOT: string = fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, "");

/** The command line's entry file. */
export const CLI_PATH: string = `${REPO_ROOT}/cli.ts`;

export interface RunOptions {
  /** Working directory (default: the tests' own). */
  cwd?: string;
  /** Variables added to the inherited environment; `undefined` removes one. */
  env?: Record<string, string | undefined>;
  /** Text written to standard input, which is then closed (closed at once when not given). */
  stdin?: string;
  /** Kills the process (SIGKILL) and fails after this long (default 60 s); only a guard against hanging tests. */
  timeoutMs?: number;
}

/** How a process ended and what it printed. `signal` is set (and `code` null) when a signal ended it. */
export interface RunResult {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

/** A process started by {@link startCli} or {@link startScript}. */
export interface RunningProcess {
  readonly pid: number;
  /** Resolves when the process has exited and its output is read. */
  wait(): Promise<RunResult>;
  /** Sends a signal (as often as wanted: a second SIGINT is a real second signal). */
  kill(signal?: TestSignal): Promise<void>;
  /** What it printed so far. */
  output(): { stdout: string; stderr: string };
  /**
   * Resolves with the first match of `pattern` in standard output or standard error (checked as they grow);
   * rejects when the process exits first or after `timeoutMs` (default 30 s).
   */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

interface OutputWaiter {
  pattern: RegExp;
  resolve: (match: string) => void;
  reject: (error: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * The command and arguments. node:child_process replaces the whole environment when given one, and the tests may
 * not read `process.env` outside src/runtime, so added variables go through `env NAME=VALUE command`, which keeps the
 * rest. `env` execs the command, so the pid is still the script's.
 */
function commandLine(script: string, args: string[], env?: Record<string, string | undefined>) {
  const self = runtime.selfCommand(script);
  if (!env || Object.keys(env).length === 0) return { command: self.command, args: [...self.args, ...args] };
  const unset: string[] = [];
  const set: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new TypeError(`not an environment variable name: ${name}`);
    // env takes its options (-u) before the assignments.
    if (value === undefined) unset.push("-u", name);
    else set.push(`${name}=${value}`);
  }
  return { command: "env", args: [...unset, ...set, self.command, ...self.args, ...args] };
}

/** Starts any script with the runtime's own command (`deno run -A --quiet SCRIPT ...args`). */
export function startScript(script: string, args: string[], options: RunOptions = {}): RunningProcess {
  const { command, args: fullArgs } = commandLine(script, args, options.env);
  const child = spawn(command, fullArgs, { cwd: options.cwd ?? runtime.cwd(), stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const waiters = new Set<OutputWaiter>();
  const settleWaiters = (exited: boolean) => {
    for (const waiter of waiters) {
      const match = waiter.pattern.exec(stdout) ?? waiter.pattern.exec(stderr);
      if (!match && !exited) continue;
      waiters.delete(waiter);
      clearTimeout(waiter.timer);
      if (match) waiter.resolve(match[0]);
      else waiter.reject(new Error(`${script} exited before printing ${waiter.pattern}\nstderr:\n${stderr}`));
    }
  };
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    settleWaiters(false);
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
    settleWaiters(false);
  });
  // A process that exits without reading its input must not turn into an unhandled EPIPE.
  child.stdin!.on("error", () => {});
  child.stdin!.end(options.stdin ?? "");

  const timeoutMs = options.timeoutMs ?? 60_000;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    if (child.pid) sendSignal(child.pid, "SIGKILL").catch(() => {});
  }, timeoutMs);
  const result = new Promise<RunResult>((resolve, reject) => {
    child.once("error", (error) => {
      clearTimeout(timer);
      settleWaiters(true);
      reject(error);
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      settleWaiters(true);
      if (timedOut) {
        reject(new Error(`${script} ${args.join(" ")} did not finish in ${timeoutMs} ms\nstderr:\n${stderr}`));
      } else {
        resolve({ code, signal, stdout, stderr });
      }
    });
  });
  let exited = false;
  // Also keeps a failed spawn from being an unhandled rejection when nobody calls wait().
  result.then(() => exited = true, () => exited = true);
  return {
    pid: child.pid ?? -1,
    wait: () => result,
    kill: (signal = "SIGTERM") => sendSignal(child.pid ?? -1, signal),
    output: () => ({ stdout, stderr }),
    waitFor(pattern, waitMs = 30_000) {
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`${script} did not print ${pattern} in ${waitMs} ms\nstderr:\n${stderr}`));
        }, waitMs);
        const waiter: OutputWaiter = { pattern, resolve, reject, timer };
        waiters.add(waiter);
        settleWaiters(exited);
      });
    },
  };
}

/** Runs any script with the runtime's own command and waits for it. */
export function runScript(script: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  return startScript(script, args, options).wait();
}

/** Starts `netweir ARGS...` (cli.ts) without waiting for it. */
export function startCli(args: string[], options: RunOptions = {}): RunningProcess {
  return startScript(CLI_PATH, args, options);
}

/** Runs `netweir ARGS...` (cli.ts) and waits for it to finish. */
export function runCli(args: string[], options: RunOptions = {}): Promise<RunResult> {
  return runScript(CLI_PATH, args, options);
}
