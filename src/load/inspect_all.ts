/**
 * Spider files inspected each in a process of its own (the hidden `_inspect` command), so one broken or hanging
 * file is reported by name while the others are still read. `netweir list` and `netweir serve` use it.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { runtime } from "../runtime/mod.ts";
import { selfCli } from "../runtime/self_cli.ts";
import type { InspectResult } from "./inspect_result.ts";

/** How long one file may take to load before it is reported as hanging. */
const INSPECT_TIMEOUT_MS = 60_000;
/** Files loaded at once; each is a process, and starting one is the slow part. */
const PARALLEL_INSPECTS = 4;

/** The last non-empty line of a text, or undefined. */
function lastLine(text: string): string | undefined {
  return text.split("\n").map((line) => line.trim()).filter((line) => line !== "").at(-1);
}

/** Reads what `_inspect` printed; undefined when it is not a result (the process died before printing one). */
function parseResult(stdout: string): InspectResult | undefined {
  const line = lastLine(stdout);
  if (!line) return undefined;
  try {
    const value = JSON.parse(line);
    if (typeof value?.error === "string" || Array.isArray(value?.spiders)) return value as InspectResult;
  } catch {
    // Not JSON: the file printed something of its own after _inspect's line, or the process crashed.
  }
  return undefined;
}

/** Runs `_inspect` on one file in a new process; its failures, even a crash or a hang, come back as an error. */
function inspectInProcess(file: string, cwd: string): Promise<InspectResult> {
  const { command, args } = selfCli();
  const absolute = resolve(cwd, file);
  return new Promise((done) => {
    const child = spawn(command, [...args, "_inspect", absolute], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: INSPECT_TIMEOUT_MS,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => stdout += chunk);
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => stderr += chunk);
    child.on("error", (error) => done({ file, error: `cannot start ${command}: ${error.message}` }));
    child.on("close", (code, signal) => {
      const result = parseResult(stdout);
      if (result) return done({ ...result, file });
      if (signal) return done({ file, error: `did not load within ${INSPECT_TIMEOUT_MS / 1000} s (${signal})` });
      const reason = stderr.split("\n").map((line) => line.trim()).find((line) => line !== "");
      done({ file, error: reason ?? `loading it ended the process with exit code ${code}` });
    });
  });
}

/**
 * Inspects files a few at a time, each in a process of its own started in `cwd` (relative files are relative to
 * it); results come back in the files' order. `netweir serve` uses it too, with a project's directory as `cwd`.
 */
export async function inspectAll(files: string[], cwd: string = runtime.cwd()): Promise<InspectResult[]> {
  const results: InspectResult[] = new Array(files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const index = next++;
      results[index] = await inspectInProcess(files[index], cwd);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_INSPECTS, files.length) }, worker));
  return results;
}
