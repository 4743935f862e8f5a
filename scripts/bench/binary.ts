/**
 * The single binary's size and start-up time: builds dist/netweir (deno task build:binary), then times `netweir
 * version` and `netweir list` of a one-spider file, each run several times, beside `deno run cli.ts version` for
 * comparison. Prints figures; asserts nothing. Run: deno run -A scripts/bench/binary.ts [runs]
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildBinary } from "../build_binary.ts";
import { median } from "./median.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const runs = Number(Deno.args[0] ?? 10);

function time(command: string, args: string[], cwd: string): number[] {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const ran = spawnSync(command, args, { cwd, stdio: "ignore" });
    if (ran.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${ran.status}`);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

const line = (what: string, values: number[]) =>
  console.log(`${what.padEnd(34)} median ${median(values).toFixed(0)} ms, min ${values[0].toFixed(0)} ms`);

const buildStart = performance.now();
const binary = await buildBinary();
console.log(`build: ${((performance.now() - buildStart) / 1000).toFixed(1)} s`);
console.log(`size: ${((await stat(binary)).size / 1024 / 1024).toFixed(1)} MiB (${binary})`);
const dir = await mkdtemp(join(tmpdir(), "netweir-bench-binary-"));
try {
  await writeFile(join(dir, "one.js"), `import { Spider } from "netweir";\nexport class One extends Spider {}\n`);
  line("binary: version", time(binary, ["version"], dir));
  line("binary: list one.js", time(binary, ["list", "one.js"], dir));
  line("deno run cli.ts version", time(Deno.execPath(), ["run", "-A", join(ROOT, "cli.ts"), "version"], dir));
} finally {
  await rm(dir, { recursive: true, force: true });
}
console.log(`(${runs} runs each, on a shared machine: figures vary with its load)`);
