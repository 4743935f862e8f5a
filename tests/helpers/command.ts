/** Runs any program to its end and collects what it printed: curl, python3, npm, deno, node. */
import { spawn } from "node:child_process";

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CommandOptions {
  cwd?: string;
  /** The whole environment for the child (it inherits this process's when not given). */
  env?: Record<string, string>;
  /** Written to standard input, which is then closed (closed at once when not given). */
  input?: string;
}

export function runCommand(command: string, args: string[], options: CommandOptions = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => stdout += chunk);
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => stderr += chunk);
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.on("error", () => {}); // a child that exits without reading its input is not an error here
    child.stdin.end(options.input ?? "");
  });
}
