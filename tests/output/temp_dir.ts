/** Test helpers for feeds: a fresh temporary directory per test, removed after it, and a logger that records. */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "../../src/spider/types.ts";

/** Runs `body` with a new empty directory and removes the directory afterwards, whatever happens. */
export async function withTempDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "netweir-feed-"));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The whole file as UTF-8 text. */
export function readText(path: string): Promise<string> {
  return readFile(path, "utf8");
}

/** A logger that keeps its lines, for asserting on warnings. */
export function recordingLogger(): Logger & { lines: { level: string; message: string; data?: unknown }[] } {
  const lines: { level: string; message: string; data?: unknown }[] = [];
  const at = (level: string) => (message: string, data?: Record<string, unknown>) => {
    lines.push({ level, message, data });
  };
  return { lines, debug: at("debug"), info: at("info"), warning: at("warning"), error: at("error") };
}
