/** A command run under GNU time, for the benchmarks: wall seconds, CPU seconds and peak RSS of the process. */
import { spawn } from "node:child_process";
import process from "node:process";

export interface Measured {
  wall: number;
  /** User + system seconds. */
  cpu: number;
  peakMb: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

export async function timed(
  command: string,
  commandArgs: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<Measured> {
  const marker = "@@time";
  const child = spawn("/usr/bin/time", ["-f", `${marker} %e %U %S %M`, command, ...commandArgs], {
    cwd: options.cwd,
    env: options.env ? { ...process.env, ...options.env } : undefined,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => stdout += chunk);
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => stderr += chunk);
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  const line = stderr.split("\n").find((text) => text.startsWith(marker));
  if (!line) throw new Error(`no timing from ${command}: ${stderr.slice(-2000)}`);
  const [wall, user, system, kb] = line.slice(marker.length).trim().split(" ").map(Number);
  return { wall, cpu: user + system, peakMb: kb / 1024, code, stdout, stderr };
}
