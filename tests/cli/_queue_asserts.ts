/** How `netweir queue` tests check a command's result: what it printed, or the one line it failed with. */
import assert from "node:assert/strict";
import type { RunResult } from "../helpers/cli.ts";

/** Asserts a command succeeded, printing `stdout` and nothing on standard error. */
export function assertPrinted(result: RunResult, stdout: string): void {
  assert.equal(result.stderr, "", result.stderr);
  assert.equal(result.code, 0);
  assert.equal(result.stdout, stdout);
}

/** Asserts a command failed with `code` and one line on standard error matching `message`, nothing else. */
export function assertFailed(result: RunResult, code: number, message: RegExp): void {
  assert.equal(result.code, code, `exit ${result.code}: ${result.stderr}`);
  assert.equal(result.stdout, "");
  assert.match(result.stderr, /^netweir: [^\n]+\n$/, result.stderr);
  assert.match(result.stderr, message);
}
