/**
 * The slowest tests and test files of a `deno task test` run, from its output:
 *
 *   npx -y deno@2.9.6 task test 2>&1 | tee test.log
 *   deno run -A scripts/bench/slowest_tests.ts test.log [N]
 *
 * Prints the N (default 20) slowest tests and the N test files with the most test time. With --parallel the files'
 * times overlap, so they add up to more than the run took: they say where the time goes, not how long the run was.
 */
import { readFile } from "node:fs/promises";
import { runtime } from "../../src/runtime/mod.ts";

/** "1m3s", "12s", "340ms", "560µs" in seconds. */
export function seconds(text: string): number {
  const match = /^(?:(\d+)m)?(?:([\d.]+)(ms|µs|s))?$/.exec(text);
  if (!match) return 0;
  const [, minutes, value, unit] = match;
  const rest = value === undefined ? 0 : Number(value) / (unit === "ms" ? 1000 : unit === "µs" ? 1e6 : 1);
  return Number(minutes ?? 0) * 60 + rest;
}

/** Each test's file, name and seconds, from the lines `./FILE => NAME ... ok (TIME)` of a parallel run. */
export function testTimes(log: string): Array<{ file: string; name: string; seconds: number }> {
  // deno-lint-ignore no-control-regex
  const plain = log.replace(/\x1b\[[0-9;]*m/g, "");
  const tests = [];
  for (const match of plain.matchAll(/^\.\/(\S+) => (.*?) \.\.\. (?:ok|FAILED) \(([^)]+)\)$/gm)) {
    tests.push({ file: match[1], name: match[2], seconds: seconds(match[3]) });
  }
  return tests;
}

if (import.meta.main) {
  const [path, count = "20"] = runtime.args();
  if (!path) {
    console.error("usage: slowest_tests.ts LOG [N]");
    runtime.exit(2);
  }
  const n = Number(count);
  const tests = testTimes(await readFile(path, "utf8"));
  const byFile = new Map<string, number>();
  for (const test of tests) byFile.set(test.file, (byFile.get(test.file) ?? 0) + test.seconds);
  console.log(`${tests.length} tests; the slowest:`);
  for (const test of [...tests].sort((a, b) => b.seconds - a.seconds).slice(0, n)) {
    console.log(`${test.seconds.toFixed(1).padStart(7)} s  ${test.file}  ${test.name.slice(0, 100)}`);
  }
  console.log("\ntest files by test time:");
  for (const [file, total] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, n)) {
    console.log(`${total.toFixed(1).padStart(7)} s  ${file}`);
  }
}
